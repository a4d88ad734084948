/** A JSON Schema document, as plain data (the action schema, skills' argument schemas, BFCL's converted schemas). */
export type JsonSchema = { [key: string]: unknown };
