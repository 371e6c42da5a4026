let loaded: Promise<typeof import('openai')> | undefined;

/**
 * Imports the `openai` package once, when a model call first needs it. It is about 150 modules, so
 * importing it up front would cost every process that never calls an OpenAI-compatible model (the
 * offline model, `--version`, the workbench) a good part of its start-up.
 */
export function loadOpenAI(): Promise<typeof import('openai')> {
  return (loaded ??= import('openai'));
}
