/**
 * The tool registry: unique canonical names, schemas checked against the supported subset and
 * compiled once for validation (at registration, or on first use for the built-in tools).
 *
 * @module
 */

import { Ajv, type ValidateFunction } from "ajv";
import { checkSchemaSubset } from "./schema_subset.ts";
import type { JsonSchema, ToolDefinition } from "./tool_definition.ts";

/** Canonical names: dotted lower-case segments, e.g. `fs.read_file`, `mcp.github.list_issues`. */
export const TOOL_NAME_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z0-9][a-z0-9_-]*)+$/;
/** Longest canonical name, in characters. */
export const MAX_TOOL_NAME_LENGTH = 128;

/** Why a tool could not be registered (a program fault of the toolset's author). */
export class ToolRegistrationError extends Error {
  readonly code: "duplicate_name" | "invalid_name" | "unsupported_schema" | "invalid_definition";
  readonly tool: string;
  readonly problems: string[];
  constructor(
    code: ToolRegistrationError["code"],
    tool: string,
    message: string,
    problems: string[] = [],
  ) {
    super(message);
    this.name = "ToolRegistrationError";
    this.code = code;
    this.tool = tool;
    this.problems = problems;
  }
}

/**
 * A registered tool: its definition with the closed schema, and the compiled validator (compiled
 * when first read with {@linkcode RegisterOptions.compile} `"on_first_use"`; the same function
 * every read after that, so `validate(value)` then `validate.errors` see one validator).
 */
export interface RegisteredTool {
  readonly definition: ToolDefinition;
  readonly validate: ValidateFunction;
}

/** Options of {@linkcode ToolRegistry.register}. */
export interface RegisterOptions {
  /**
   * When the input schema is compiled into a validator. `"now"`: at registration, checked against
   * JSON Schema's meta-schema first, so a schema Ajv refuses is a registration error (for schemas
   * from outside: MCP servers, declarative tool files). `"on_first_use"`: when the tool is first
   * validated, without the meta-schema check (for the built-in tools, whose schemas zod writes
   * and a test compiles the `"now"` way): a run pays only for the tools it calls. With `"now"` the
   * schema is checked against the supported subset at registration; with `"on_first_use"` that
   * check, and writing the JSON Schema at all, wait for the first read of `input_schema` or
   * `validate`, which then throw the same {@linkcode ToolRegistrationError}. A call is judged by
   * the same Ajv options either way.
   * @default "now"
   */
  compile?: "now" | "on_first_use";
}

/**
 * Holds the tools of a run. Registration refuses duplicates (never an overwrite or a suffix),
 * malformed names and schemas outside the subset of `schema_subset.ts`.
 *
 * @example
 * ```ts
 * import { ToolRegistry } from "./registry.ts";
 * const registry = new ToolRegistry();
 * console.assert(registry.list().length === 0);
 * ```
 */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();
  // Made on first need: building an Ajv (and compiling the meta-schema) costs start-up time.
  #ajv: Ajv | null = null;
  #trustedAjv: Ajv | null = null;

  /**
   * Registers a tool.
   *
   * @param options See {@linkcode RegisterOptions}.
   * @throws {ToolRegistrationError} `duplicate_name`, `invalid_name`, `unsupported_schema`,
   * `invalid_definition` (bad permission, annotations or risk level).
   */
  register(tool: ToolDefinition, options: RegisterOptions = {}): void {
    const name = tool.name;
    if (
      typeof name !== "string" || name.length > MAX_TOOL_NAME_LENGTH ||
      !TOOL_NAME_PATTERN.test(name)
    ) {
      throw new ToolRegistrationError(
        "invalid_name",
        String(name),
        `Cannot register tool "${
          String(name)
        }": names are dotted lower-case segments like "fs.read_file", at most ${MAX_TOOL_NAME_LENGTH} characters`,
      );
    }
    if (this.#tools.has(name)) {
      throw new ToolRegistrationError(
        "duplicate_name",
        name,
        `Cannot register tool "${name}": a tool with this name is already registered`,
      );
    }
    if (tool.permission !== "readonly" && tool.permission !== "write") {
      throw new ToolRegistrationError(
        "invalid_definition",
        name,
        `Cannot register tool "${name}": permission must be "readonly" or "write"`,
      );
    }
    const risk = tool.annotations?.risk_level;
    if (!Number.isInteger(risk) || risk < 0 || risk > 4) {
      throw new ToolRegistrationError(
        "invalid_definition",
        name,
        `Cannot register tool "${name}": annotations.risk_level must be an integer from 0 to 4`,
      );
    }
    if (
      tool.permission === "readonly" &&
      (tool.annotations.destructive || !tool.annotations.read_only)
    ) {
      throw new ToolRegistrationError(
        "invalid_definition",
        name,
        `Cannot register tool "${name}": a readonly tool must be read_only and not destructive`,
      );
    }
    if ((options.compile ?? "now") === "on_first_use") {
      this.#registerTrusted(name, tool);
      return;
    }
    const definition: ToolDefinition = { ...tool, input_schema: subsetOf(name, tool.input_schema) };
    let validate: ValidateFunction;
    try {
      validate = (this.#ajv ??= newAjv(true)).compile(definition.input_schema);
    } catch (error) {
      throw new ToolRegistrationError(
        "unsupported_schema",
        name,
        `Cannot register tool "${name}": its input schema does not compile: ${
          (error as Error).message
        }`,
      );
    }
    this.#tools.set(name, { definition, validate });
  }

  /**
   * A built-in tool: its JSON Schema (written from zod), the subset check and the validator are
   * all made on first read, so a run pays only for the tools it lists or calls (about 0.5 ms a
   * tool, 13 ms for the built-in set at every start before; issue 16). A test checks every
   * built-in schema the `"now"` way.
   */
  #registerTrusted(name: string, tool: ToolDefinition): void {
    // Copy the definition without reading its schema (a getter that writes it).
    const descriptors = Object.getOwnPropertyDescriptors(tool) as PropertyDescriptorMap;
    delete descriptors.input_schema;
    let schema: JsonSchema | null = null;
    const definition = Object.defineProperties({}, {
      ...descriptors,
      input_schema: {
        enumerable: true,
        get: (): JsonSchema => schema ??= subsetOf(name, tool.input_schema),
      },
    }) as ToolDefinition;
    let compiled: ValidateFunction | null = null;
    const compile = () => this.#compileTrusted(definition.input_schema);
    this.#tools.set(name, {
      definition,
      get validate(): ValidateFunction {
        return compiled ??= compile();
      },
    });
  }

  #compileTrusted(schema: object): ValidateFunction {
    return (this.#trustedAjv ??= newAjv(false)).compile(schema);
  }

  /** The tool named `name`, or undefined. */
  get(name: string): RegisteredTool | undefined {
    return this.#tools.get(name);
  }

  /** Every registered tool, in registration order. */
  list(): RegisteredTool[] {
    return [...this.#tools.values()];
  }
}

/**
 * `schema` reduced to the supported subset (`schema_subset.ts`).
 *
 * @throws {ToolRegistrationError} `unsupported_schema`, with every problem found.
 */
function subsetOf(name: string, schema: JsonSchema): JsonSchema {
  const checked = checkSchemaSubset(schema);
  if ("problems" in checked) {
    throw new ToolRegistrationError(
      "unsupported_schema",
      name,
      `Cannot register tool "${name}": its input schema ${checked.problems[0]}`,
      checked.problems,
    );
  }
  return checked.schema as JsonSchema;
}

/**
 * The registry's Ajv: no coercion, no defaults filled in, no removal of unknown keys — what the
 * model sent is judged as sent.
 *
 * @param validateSchema Check each schema against the meta-schema before compiling it.
 */
function newAjv(validateSchema: boolean): Ajv {
  return new Ajv({
    strict: true,
    allErrors: false,
    coerceTypes: false,
    useDefaults: false,
    validateFormats: false,
    validateSchema,
    // Without schema checks the meta-schema is never read: not adding it saves about 5 ms of the
    // first call's compile (issue 16).
    meta: validateSchema,
    // `type` lists (`["string", "null"]`) are part of the subset (schema_subset.ts).
    allowUnionTypes: true,
  });
}
