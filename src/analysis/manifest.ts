/** `manifest.json`: the working manifest while the run is open; at assembly, the artifact's exact one. PURE MODULE. */
import type { Disposition } from '../kb/layouts.js';

/** `published` is written by publication, with the commit on the run branch that `integrate` merges. */
export type ManifestStatus = 'prepared' | 'running' | 'stopped' | 'exhausted' | 'assembled' | 'published';

export interface ManifestMember {
  readonly role: string;
  readonly path: string;
  readonly sha256: string;
  readonly size: number;
  readonly check: 'passed' | 'failed';
  readonly verified: 'accepted' | 'refused' | 'not-verified';
  readonly profile: string;
  readonly model: string | null;
  readonly modelSource: 'harness' | 'profile' | 'none';
  readonly launch: string;
}

export interface Manifest {
  readonly run: string;
  readonly system: string;
  readonly status: ManifestStatus;
  readonly disposition?: Disposition;
  readonly layout: string;
  readonly layoutSha256: string;
  readonly plan: string;
  readonly planSha256: string;
  readonly preparationCommit: string;
  readonly source?: string;
  /** Member path → SHA-256. */
  readonly files: Readonly<Record<string, string>>;
  readonly members: readonly ManifestMember[];
  readonly publication?: PublicationRecord;
  readonly updatedAt: string;
}

export interface PublicationRecord {
  readonly destination: string;
  /** On the run branch: what `integrate` merges. */
  readonly commit: string;
  readonly manifest: string;
  /** Absolute: the evidence of what each try did. */
  readonly journal: string;
  readonly publishedAt: string;
}

/** `MemberRecord`'s parts, spelled out: importing it from progress.ts (which imports this module) would be a cycle. */
interface RecordedMember extends Omit<ManifestMember, 'verified' | 'launch'> {
  readonly verified?: { readonly outcome: 'accepted' | 'refused' };
  readonly launchId: string;
}

export function manifestMember(member: RecordedMember): ManifestMember {
  return {
    role: member.role,
    path: member.path,
    sha256: member.sha256,
    size: member.size,
    check: member.check,
    verified: member.verified === undefined ? 'not-verified' : member.verified.outcome,
    profile: member.profile,
    model: member.model,
    modelSource: member.modelSource,
    launch: member.launchId,
  };
}
