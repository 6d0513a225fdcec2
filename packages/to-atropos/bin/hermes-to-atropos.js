#!/usr/bin/env node
import { launch } from '@hermes-datagen/core/launch';

await launch('hermes-to-atropos', new URL('../dist/main.js', import.meta.url));
