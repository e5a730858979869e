// The model channel admits exactly the host of the configured provider's endpoint, for every
// provider (the same endpoint the provider is given), and none for the script provider.
import assert from "node:assert/strict";
import { networkChannels } from "./network_gateway.ts";

Deno.test("networkChannels admits exactly each provider's host on the model channel", () => {
  const memory = { provider: { kind: "file" } };
  const cases: [Record<string, string>, string[]][] = [
    [{ provider: "script" }, []],
    [{ provider: "anthropic" }, ["api.anthropic.com:443"]],
    [{ provider: "openai-responses" }, ["api.openai.com:443"]],
    [{ provider: "azure", resource: "contoso-ai" }, ["contoso-ai.openai.azure.com:443"]],
    [{ provider: "bedrock", region: "eu-west-1" }, ["bedrock-runtime.eu-west-1.amazonaws.com:443"]],
    [
      { provider: "vertex", project: "kagent-ci", location: "europe-west4" },
      ["europe-west4-aiplatform.googleapis.com:443"],
    ],
    [{ provider: "google" }, ["generativelanguage.googleapis.com:443"]],
    [{ provider: "mistral" }, ["api.mistral.ai:443"]],
    [{ provider: "groq" }, ["api.groq.com:443"]],
    // Assuming a role with the OIDC token: STS's host too.
    [{ provider: "bedrock", region: "us-east-1", role_arn_env: "AWS_ROLE_ARN" }, [
      "bedrock-runtime.us-east-1.amazonaws.com:443",
      "sts.us-east-1.amazonaws.com:443",
    ]],
    [{ provider: "bedrock", region: "us-east-1", base_url: "http://127.0.0.1:8080" }, [
      "127.0.0.1:8080",
    ]],
  ];
  for (const [model, hosts] of cases) {
    const channels = networkChannels({ model: model as { provider: string }, memory });
    assert.deepEqual(channels.model, hosts, JSON.stringify(model));
  }
  // A child agent's own cloud model adds its host; the run's stays.
  const both = networkChannels({
    model: { provider: "anthropic" },
    memory,
    agents: {
      reviewer: { model: { provider: "bedrock", region: "us-west-2" } as { provider: string } },
    },
  });
  assert.deepEqual(both.model, [
    "api.anthropic.com:443",
    "bedrock-runtime.us-west-2.amazonaws.com:443",
  ]);
});
