// The public surface of @hermes-datagen/core: the only way the CLIs reach it.
export * from './model.js';
export * from './pythonJson.js';
