/**
 * AWS credentials from the runner's OIDC token (private to this folder): STS
 * `AssumeRoleWithWebIdentity` with the token file's content, as the AWS SDKs do for
 * `AWS_ROLE_ARN` + `AWS_WEB_IDENTITY_TOKEN_FILE` (EKS, CIs that write a token file). The request
 * is unsigned (the token is the proof) and leaves through the gateway's model channel, whose
 * allowlist holds the STS host (`modelTokenUrl`). Credentials are kept until five minutes before
 * they expire, then asked for again with the file read anew (the file is rotated).
 *
 * @module
 */

import { ModelError } from "../model_provider.ts";

/** Temporary credentials STS returned. */
export interface AssumedCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
}

/** What {@linkcode webIdentityCredentials} needs. */
export interface WebIdentityOptions {
  /** The STS endpoint, e.g. `https://sts.us-east-1.amazonaws.com`. */
  sts_url: string;
  role_arn: string;
  /** The OIDC token file's path (read on every exchange). */
  token_file: string;
  /** The fetch the request leaves through (with the run's retries). */
  fetch: typeof fetch;
  /** For tests. @default Date.now */
  now?: () => number;
}

/** Credentials are asked for again this long before they expire, in ms. */
const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * A credential provider for `@ai-sdk/amazon-bedrock` (`credentialProvider`): the first call
 * exchanges the token, later ones reuse the credentials until they near their expiry.
 *
 * @throws {ModelError} `provider_failed` when the token file cannot be read, STS refuses
 *   (`Cannot assume role "<arn>": STS answered HTTP 403: <its message>`), or its answer lacks
 *   credentials.
 */
export function webIdentityCredentials(
  options: WebIdentityOptions,
): () => Promise<AssumedCredentials> {
  const now = options.now ?? Date.now;
  let cached: { credentials: AssumedCredentials; expires: number } | null = null;
  return async () => {
    if (cached !== null && now() < cached.expires - REFRESH_BEFORE_MS) return cached.credentials;
    cached = await assumeRole(options, now);
    return cached.credentials;
  };
}

async function assumeRole(
  options: WebIdentityOptions,
  now: () => number,
): Promise<{ credentials: AssumedCredentials; expires: number }> {
  const failed = (reason: string) =>
    new ModelError("provider_failed", `Cannot assume role "${options.role_arn}": ${reason}`, {
      status: null,
    });
  let token: string;
  try {
    token = (await Deno.readTextFile(options.token_file)).trim();
  } catch (error) {
    throw failed(
      `cannot read the web identity token file "${options.token_file}" (${
        error instanceof Error ? error.message : String(error)
      })`,
    );
  }
  const body = new URLSearchParams({
    Action: "AssumeRoleWithWebIdentity",
    Version: "2011-06-15",
    RoleArn: options.role_arn,
    RoleSessionName: `kagent-run-${now()}`,
    WebIdentityToken: token,
  });
  const response = await options.fetch(`${options.sts_url}/`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/xml" },
    body: body.toString(),
  });
  const text = await response.text();
  if (!response.ok) {
    throw failed(
      `STS answered HTTP ${response.status}: ${xmlField(text, "Message") ?? "no message"}`,
    );
  }
  const accessKeyId = xmlField(text, "AccessKeyId");
  const secretAccessKey = xmlField(text, "SecretAccessKey");
  const sessionToken = xmlField(text, "SessionToken");
  const expiration = Date.parse(xmlField(text, "Expiration") ?? "");
  if (accessKeyId === null || secretAccessKey === null || sessionToken === null) {
    throw failed("the STS answer holds no credentials");
  }
  return {
    credentials: { accessKeyId, secretAccessKey, sessionToken },
    expires: Number.isNaN(expiration) ? now() + REFRESH_BEFORE_MS : expiration,
  };
}

/** The text of the first `<name>` element of an STS answer (XML escapes undone), or `null`. */
function xmlField(xml: string, name: string): string | null {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  if (match === null) return null;
  return (match[1] as string).replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"').replaceAll("&apos;", "'").replaceAll("&amp;", "&");
}
