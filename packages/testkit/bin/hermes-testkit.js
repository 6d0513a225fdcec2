#!/usr/bin/env node
import { launch } from '@hermes-datagen/core/launch';

await launch('hermes-testkit', new URL('../dist/main.js', import.meta.url));
