// The public surface of @hermes-datagen/core: the only way the CLIs reach it.
export * from './model.js';
export * from './pythonJson.js';
export * from './errors.js';
export * from './schemas.js';
export * from './lineReader.js';
export * from './records.js';
export * from './writer.js';
export * from './atomicFile.js';
export * from './counters.js';
export * from './logger.js';
export * from './progress.js';
export * from './cli.js';
export * from './plainObject.js';
export * from './tagBlocks.js';
export * from './turns.js';
export * from './toolCalls.js';
export * from './think.js';
