/**
 * Where the options schema (`options-schema.ts`) puts its validators once it is loaded, however
 * it was loaded: lazily by `check.ts`, or statically by a module that imports it (the queue's
 * policies). A module of its own so that neither of the two imports the other.
 */

/** What `check.ts` needs of the options schema. */
export interface OptionSchemaValidators {
  agentOptionsIssues(options: unknown): string[];
  warnUnknownNestedFields(options: unknown): void;
}

let validators: OptionSchemaValidators | undefined;

/** Called once by the options schema when it is evaluated. */
export function registerOptionSchema(loaded: OptionSchemaValidators): void {
  validators = loaded;
}

/** The options schema's validators, or `undefined` while it is not loaded. */
export function optionSchemaValidators(): OptionSchemaValidators | undefined {
  return validators;
}
