// STS AssumeRoleWithWebIdentity: the token file's content goes in the form, the credentials are
// reused until five minutes before they expire and then asked for again with the file read anew,
// and a refusal or an unreadable token file fails with the role named.
import assert from "node:assert/strict";
import { webIdentityCredentials } from "./_aws_web_identity.ts";
import { rejection } from "./_provider_test_helpers.ts";

const answer = (id: string, expiration: string) =>
  new Response(
    `<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials>` +
      `<AccessKeyId>${id}</AccessKeyId><SecretAccessKey>s&amp;k</SecretAccessKey>` +
      `<SessionToken>tok</SessionToken><Expiration>${expiration}</Expiration>` +
      `</Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`,
  );

Deno.test("webIdentityCredentials exchanges the token file, reuses the credentials, and refreshes near expiry", async () => {
  const folder = await Deno.makeTempDir();
  try {
    const tokenFile = `${folder}/token`;
    await Deno.writeTextFile(tokenFile, "jwt-one\n");
    const forms: URLSearchParams[] = [];
    let clock = Date.parse("2030-01-01T00:00:00Z");
    const provider = webIdentityCredentials({
      sts_url: "https://sts.example",
      role_arn: "arn:aws:iam::1:role/r",
      token_file: tokenFile,
      now: () => clock,
      fetch: (_input, init) => {
        forms.push(new URLSearchParams(String(init?.body)));
        return Promise.resolve(answer(`AKID${forms.length}`, "2030-01-01T01:00:00Z"));
      },
    });
    assert.deepEqual(await provider(), {
      accessKeyId: "AKID1",
      secretAccessKey: "s&k",
      sessionToken: "tok",
    });
    clock += 50 * 60_000; // 10 minutes before expiry: reused
    assert.equal((await provider()).accessKeyId, "AKID1");
    await Deno.writeTextFile(tokenFile, "jwt-two\n");
    clock += 6 * 60_000; // 4 minutes before expiry: asked again, with the rotated token
    assert.equal((await provider()).accessKeyId, "AKID2");
    assert.deepEqual(forms.map((form) => form.get("WebIdentityToken")), ["jwt-one", "jwt-two"]);
    assert.equal(forms[0]?.get("RoleArn"), "arn:aws:iam::1:role/r");
  } finally {
    await Deno.remove(folder, { recursive: true });
  }
});

Deno.test("webIdentityCredentials fails naming the role when STS refuses or the token file is missing", async () => {
  const refused = webIdentityCredentials({
    sts_url: "https://sts.example",
    role_arn: "arn:aws:iam::1:role/r",
    token_file: "/dev/null",
    fetch: () =>
      Promise.resolve(
        new Response(
          "<ErrorResponse><Error><Message>Not authorized</Message></Error></ErrorResponse>",
          {
            status: 403,
          },
        ),
      ),
  });
  assert.match(
    (await rejection(refused())).message,
    /Cannot assume role "arn:aws:iam::1:role\/r": STS answered HTTP 403: Not authorized/,
  );
  const missing = webIdentityCredentials({
    sts_url: "https://sts.example",
    role_arn: "arn:aws:iam::1:role/r",
    token_file: "/nonexistent/kagent/token",
    fetch: () => Promise.reject(new Error("not reached")),
  });
  assert.match(
    (await rejection(missing())).message,
    /cannot read the web identity token file "\/nonexistent\/kagent\/token"/,
  );
});
