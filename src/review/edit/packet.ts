/**
 * Packets (markdown whose frontmatter code writes; `review packet` compares its hashes with the note) and the publication manifest,
 * whose bytes are in the run's store, so what is approved is what is written.
 */
import YAML from 'yaml';
import { z } from 'zod';
import type { Decision, EditKind } from './types.js';

const PACKETS_DIR = 'kb/reports/state/review/packets';

export function packetPath(note: string, kind: EditKind): string {
  return `${PACKETS_DIR}/${note.replace(/^kb\//, '')}/${kind}.md`;
}

const HEX64 = /^[0-9a-f]{64}$/;

const packetSchema = z.strictObject({
  packet: z.enum(['full-pass', 'revise']),
  note: z.string().min(1),
  run: z.string().min(1),
  start_sha256: z.string().regex(HEX64),
  final_sha256: z.string().regex(HEX64),
  decision: z.enum(['edit', 'no-edit']),
  closing: z.enum(['clean', 'residual', 'complete']),
  resolved: z.array(z.string()),
  remaining: z.array(z.string()),
  introduced: z.array(z.string()),
  passes: z.array(z.string()).optional(),
  profile: z.string().min(1),
});

export type PacketRecord = z.infer<typeof packetSchema>;

export function formatPacket(record: PacketRecord, body: string): string {
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(packetSchema.shape)) {
    const value = (record as Record<string, unknown>)[key];
    if (value !== undefined) ordered[key] = value;
  }
  return `---\n${YAML.stringify(ordered, { lineWidth: 0 })}---\n\n${body.endsWith('\n') ? body : `${body}\n`}`;
}

export type PacketParse = { ok: true; record: PacketRecord; body: string } | { ok: false; findings: string[] };

/** Anything but the shape code writes is refused. */
export function parsePacket(text: string, file = 'packet'): PacketParse {
  const match = /^---\n([\s\S]*?)\n---\n\n?([\s\S]*)$/.exec(text);
  if (!match) return { ok: false, findings: [`${file}: a packet starts with a \`---\` frontmatter block`] };
  let data: unknown;
  try {
    data = YAML.parse(match[1]!);
  } catch (error) {
    return { ok: false, findings: [`${file}: malformed frontmatter: ${(error as Error).message.split('\n')[0]}`] };
  }
  const parsed = packetSchema.safeParse(data);
  if (!parsed.success)
    return { ok: false, findings: parsed.error.issues.map((issue) => `${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`) };
  return { ok: true, record: parsed.data, body: match[2]! };
}

export interface Manifest {
  kind: EditKind;
  run: string;
  workflow: string;
  note: string;
  decision: Decision;
  start_sha256: string;
  final_sha256: string;
  /** The captured brief's digest: publication refuses when the brief changed. */
  brief_sha256: string;
  /** Path → SHA-256 of the exact bytes written; the note is written last. */
  files: Record<string, string>;
}

/** Stable key order, so the generated file is byte-for-byte what was approved. */
export function formatManifest(manifest: Manifest): string {
  const files = Object.fromEntries(
    Object.keys(manifest.files)
      .sort()
      .map((key) => [key, manifest.files[key]]),
  );
  return `${JSON.stringify({ ...manifest, files }, null, 2)}\n`;
}

export function parseManifest(text: string): Manifest {
  return JSON.parse(text) as Manifest;
}
