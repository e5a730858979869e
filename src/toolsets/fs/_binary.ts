/**
 * Binary detection: a NUL byte or invalid UTF-8 in the first bytes, and a media type guessed from
 * magic numbers for the error details. Private to the folder.
 *
 * @module
 */

import { BINARY_SNIFF_BYTES } from "./_limits.ts";

const SIGNATURES: readonly { mediaType: string; magic: readonly number[] }[] = [
  { mediaType: "image/png", magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { mediaType: "image/jpeg", magic: [0xff, 0xd8, 0xff] },
  { mediaType: "image/gif", magic: [0x47, 0x49, 0x46, 0x38] },
  { mediaType: "application/pdf", magic: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { mediaType: "application/zip", magic: [0x50, 0x4b, 0x03, 0x04] },
  { mediaType: "application/gzip", magic: [0x1f, 0x8b] },
  { mediaType: "application/x-elf", magic: [0x7f, 0x45, 0x4c, 0x46] },
];

/** Guesses a media type from magic bytes; `application/octet-stream` when none matches. */
export function guessMediaType(sample: Uint8Array): string {
  const match = SIGNATURES.find(({ magic }) =>
    magic.length <= sample.byteLength && magic.every((byte, index) => sample[index] === byte)
  );
  return match?.mediaType ?? "application/octet-stream";
}

/** Tells whether the first {@linkcode BINARY_SNIFF_BYTES} of `bytes` hold a NUL byte. */
export function hasNulByte(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * Tells whether `bytes` (the start of a file) is binary: a NUL byte, or invalid UTF-8 in the first
 * {@linkcode BINARY_SNIFF_BYTES}. A multi-byte character cut by the end of the sample is fine.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, BINARY_SNIFF_BYTES);
  if (sample.includes(0)) return true;
  try {
    // `stream: true` accepts an incomplete sequence at the end of the sample.
    new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
    return false;
  } catch {
    return true;
  }
}
