import { urlHash } from '../ids.js';
import { Outcome } from '../outcomes.js';
import type { Candidate, UrlPathAcceptor, Verdict } from './acceptor.js';
import { refuse } from './verdict.js';

/**
 * Urls whose page was deleted by hand from this version (the url ledger's `deleted` rows, read when the run starts):
 * refused with REJECTED_FILTER, so a later `update` or `merge` of the version does not fetch them again. The
 * composition point puts it in front of the catalog's chain, only when the version has any.
 */
export function deletedUrls(hashes: ReadonlySet<string>, version: number): UrlPathAcceptor {
  const name = 'deleted-urls';
  return {
    name,
    mandatory: true,
    check(candidate) {
      return hashes.has(urlHash(candidate.url))
        ? refuse(name, Outcome.REJECTED_FILTER, `its page was deleted from version ${version} by hand`)
        : { accept: true };
    },
  };
}

/** `acceptors` behind the deleted-urls acceptor: a deleted url is refused before any other acceptor runs. */
export function refuseDeleted(
  acceptors: { check(candidate: Candidate): Verdict | Promise<Verdict> },
  hashes: ReadonlySet<string>,
  version: number,
): { check(candidate: Candidate): Verdict | Promise<Verdict> } {
  if (hashes.size === 0) return acceptors;
  const deleted = deletedUrls(hashes, version);
  return {
    check(candidate) {
      const verdict = deleted.check(candidate) as Verdict;
      return verdict.accept ? acceptors.check(candidate) : verdict;
    },
  };
}
