/**
 * The id a provider gives each answer in its response headers (private to this folder), kept in
 * `model.responded` so that an audit can be matched with the provider's own logs.
 *
 * @module
 */

/**
 * The headers that carry it, by provider, first found wins: OpenAI and Groq `x-request-id`,
 * Anthropic `request-id`, Amazon Bedrock `x-amzn-requestid`, Azure OpenAI `apim-request-id`,
 * Mistral `mistral-correlation-id`, Google `x-goog-request-id`.
 */
export const REQUEST_ID_HEADERS: readonly string[] = [
  "x-request-id",
  "request-id",
  "x-amzn-requestid",
  "apim-request-id",
  "mistral-correlation-id",
  "x-goog-request-id",
];

/** The answer's request id, or `null` when its headers carry none. */
export function requestIdOf(headers: Headers | Record<string, string | undefined>): string | null {
  const read = headers instanceof Headers
    ? (name: string) => headers.get(name)
    : (name: string) =>
      Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
  for (const name of REQUEST_ID_HEADERS) {
    const value = read(name);
    if (typeof value === "string" && value !== "") return value;
  }
  return null;
}
