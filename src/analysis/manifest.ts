/**
 * The run's manifest: while the run is open, the working manifest (its current members and their
 * check status); at assembly, the artifact's exact manifest (member path → SHA-256, and the model
 * each member's launch actually used). One file, `manifest.json` in the run directory.
 *
 * PURE MODULE.
 */
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
  /** Member path (inside the artifact) → SHA-256 of its bytes. */
  readonly files: Readonly<Record<string, string>>;
  readonly members: readonly ManifestMember[];
  /** Set once the artifact is published: where it went and the run-branch commit that holds it. */
  readonly publication?: PublicationRecord;
  readonly updatedAt: string;
}

export interface PublicationRecord {
  /** Repository-relative directory the members were copied to. */
  readonly destination: string;
  /** The commit on the run branch that adds the published artifact (what `integrate` merges). */
  readonly commit: string;
  /** The published exact manifest with provenance, repository-relative. */
  readonly manifest: string;
  /** The publication's journal (absolute), the evidence of what each try did. */
  readonly journal: string;
  readonly publishedAt: string;
}

/**
 * The parts of the workflow's member record (`MemberRecord` in progress.ts) a manifest entry is made
 * from, spelled out here because progress.ts imports this module's `PublicationRecord`: importing
 * `MemberRecord` back would make the two modules a cycle.
 */
export interface RecordedMember extends Omit<ManifestMember, 'verified' | 'launch'> {
  readonly verified?: { readonly outcome: 'accepted' | 'refused' };
  readonly launchId: string;
}

/** A manifest's member entry from the workflow's record of the member. */
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
