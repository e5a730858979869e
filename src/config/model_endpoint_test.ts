// One answer for where each provider is reached and which variables are its secrets: the
// endpoint each config makes (the gateway admits exactly its host), the credential variables the
// audit redacts, and the schema refusing a cloud config that lacks what its endpoint or
// credentials need.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigError } from "./config_error.ts";
import { loadConfig } from "./load_config.ts";
import { modelBaseUrl, modelCredentialEnv, type ModelEndpointConfig } from "./model_endpoint.ts";

Deno.test("modelBaseUrl builds each provider's endpoint from its config, base_url first", () => {
  const cases: [ModelEndpointConfig, string | null][] = [
    [{ provider: "script" }, null],
    [{ provider: "openai-responses" }, "https://api.openai.com/v1"],
    [{ provider: "azure", resource: "contoso-ai" }, "https://contoso-ai.openai.azure.com/openai"],
    [
      { provider: "bedrock", region: "eu-central-1" },
      "https://bedrock-runtime.eu-central-1.amazonaws.com",
    ],
    [
      { provider: "vertex", project: "kagent-ci", location: "us-central1" },
      "https://us-central1-aiplatform.googleapis.com/v1beta1/projects/kagent-ci/locations/us-central1/publishers/google",
    ],
    [
      { provider: "vertex", project: "kagent-ci", location: "global" },
      "https://aiplatform.googleapis.com/v1beta1/projects/kagent-ci/locations/global/publishers/google",
    ],
    [
      { provider: "vertex", project: "kagent-ci", location: "eu" },
      "https://aiplatform.eu.rep.googleapis.com/v1beta1/projects/kagent-ci/locations/eu/publishers/google",
    ],
    [
      { provider: "vertex", api_key_env: "K" },
      "https://aiplatform.googleapis.com/v1/publishers/google",
    ],
    [{ provider: "google" }, "https://generativelanguage.googleapis.com/v1beta"],
    [{ provider: "mistral" }, "https://api.mistral.ai/v1"],
    [{ provider: "groq" }, "https://api.groq.com/openai/v1"],
    [
      { provider: "bedrock", region: "us-east-1", base_url: "https://proxy.corp/bedrock/" },
      "https://proxy.corp/bedrock",
    ],
  ];
  for (const [model, url] of cases) assert.equal(modelBaseUrl(model), url, JSON.stringify(model));
  assert.throws(() => modelBaseUrl({ provider: "azure" }), /needs "resource" or "base_url"/);
});

Deno.test("modelCredentialEnv names every credential variable, Bedrock's AWS defaults included", () => {
  assert.deepEqual(modelCredentialEnv({ provider: "bedrock", region: "us-east-1" }), [
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
  ]);
  assert.deepEqual(
    modelCredentialEnv({ provider: "bedrock", region: "us-east-1", api_key_env: "BEDROCK_KEY" }),
    ["BEDROCK_KEY"],
  );
  assert.deepEqual(
    modelCredentialEnv({ provider: "azure", resource: "r", access_token_env: "AZ_TOKEN" }),
    ["AZ_TOKEN"],
  );
  assert.deepEqual(modelCredentialEnv({ provider: "script" }), []);
  // Assuming a role: no static key variables are read (STS gives the credentials).
  assert.deepEqual(
    modelCredentialEnv({ provider: "bedrock", region: "us-east-1", role_arn_env: "AWS_ROLE_ARN" }),
    ["AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE"],
  );
});

async function load(model: Record<string, unknown>) {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "kagent_model_endpoint_" }));
  try {
    const path = join(dir, "agent.jsonc");
    await Deno.writeTextFile(path, JSON.stringify({ workspace: ".", model }));
    return await loadConfig(path, {}, { home: () => "/home/tester" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a cloud model config's credential variables become secrets of the run", async () => {
  const config = await load({
    provider: "bedrock",
    model: "us.anthropic.claude-sonnet-5-5-v1:0",
    region: "us-west-2",
    session_token_env: "CI_AWS_SESSION",
  });
  for (const name of ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "CI_AWS_SESSION"]) {
    assert.ok(config.audit.secret_env.includes(name), name);
  }
  const vertex = await load({
    provider: "vertex",
    model: "gemini-3-pro",
    project: "kagent-ci",
    location: "us-central1",
    access_token_env: "VERTEX_TOKEN",
  });
  assert.ok(vertex.audit.secret_env.includes("VERTEX_TOKEN"));
});

Deno.test("a cloud model config without what its endpoint or credentials need is refused at load", async () => {
  const refused: Record<string, unknown>[] = [
    { provider: "azure", model: "d", api_key_env: "K" },
    { provider: "azure", model: "d", resource: "r" },
    { provider: "azure", model: "d", resource: "r", api_key_env: "K", access_token_env: "T" },
    { provider: "bedrock", model: "m" },
    { provider: "vertex", model: "g", access_token_env: "T" },
    { provider: "google", model: "g" },
    { provider: "bedrock", model: "m", region: "us-east-1", role_arn_env: "R", api_key_env: "K" },
  ];
  for (const model of refused) {
    await assert.rejects(load(model), ConfigError, JSON.stringify(model));
  }
  // Near miss: each with what it needs loads.
  for (
    const model of [
      { provider: "azure", model: "d", resource: "r", api_key_env: "K" },
      { provider: "bedrock", model: "m", region: "us-east-1" },
      { provider: "bedrock", model: "m", region: "us-east-1", role_arn_env: "AWS_ROLE_ARN" },
      {
        provider: "vertex",
        model: "g",
        project: "kagent-ci",
        location: "us",
        access_token_env: "T",
      },
      { provider: "google", model: "g", api_key_env: "K" },
    ]
  ) {
    const config = await load(model);
    assert.equal(config.model?.provider, model.provider);
  }
});
