#!/usr/bin/env node
import { launch } from '@hermes-datagen/core/launch';

await launch('hermes-stats', new URL('../dist/main.js', import.meta.url));
