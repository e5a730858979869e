/**
 * Test helpers shipped as modules: temporary sandboxes, tool contexts over them, a tool caller
 * that validates like the runtime, and a deadline for steps that could hang.
 *
 * @module
 */
