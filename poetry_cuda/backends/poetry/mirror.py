"""Per-user mirrors inside Poetry: a managed source fetched from a mirror, recorded as itself.

Poetry writes `[package.source] url` from each locked package's `source_url`
(`Locker._dump_package`), and at install time finds a locked package's repository by its
source *name* (`Chooser._get_repository`) and checks every downloaded file against the
locked hashes (`Chooser._choose_hash_verified_link`, `Executor._validate_archive_hash`).
So a repository of the same name and priority that fetches pages and files from the mirror
while stamping its packages with the upstream URL changes nothing Poetry writes, and a
mirror serving other files fails the install instead of being trusted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from poetry.repositories.legacy_repository import LegacyRepository
from poetry.utils.cache import FileCache


if TYPE_CHECKING:
    from collections.abc import Sequence

    from poetry.core.constraints.version import Version
    from poetry.core.packages.dependency import Dependency
    from poetry.core.packages.package import Package
    from poetry.poetry import Poetry

    from poetry_cuda.request.user_mirrors import Redirect


class MirroredRepository(LegacyRepository):
    """The managed source `redirect.name`, served from `redirect.mirror`."""

    def __init__(self, redirect: Redirect, poetry: Poetry) -> None:
        config = poetry.config
        # Pages, files and credentials (`http-basic.<name>`) all go to the mirror.
        super().__init__(
            redirect.name,
            redirect.mirror,
            config=config,
            disable_cache=poetry.disable_cache,
            pool_size=config.installer_max_workers,
        )
        self.redirect = redirect
        # Release data (files and hashes) is cached per name: the mirror keeps its own, so
        # what it served never passes for what the upstream source served, nor the reverse.
        self._cache_dir = config.repository_cache_directory / redirect.cache
        self._release_cache = FileCache(path=self._cache_dir)

    @property
    def url(self) -> str:
        return self.redirect.upstream.rstrip("/")

    def find_packages(self, dependency: Dependency) -> list[Package]:
        return [self._upstream(p) for p in super().find_packages(dependency)]

    def package(self, name: str, version: Version) -> Package:
        return self._upstream(super().package(name, version))

    def _upstream(self, package: Package) -> Package:
        # What the lock records: the committed source's URL (Poetry stamps `_source_url`
        # the same way in LegacyRepository.package).
        if package.source_reference == self.name:
            package._source_url = self.url
        return package


def redirect_pool(poetry: Poetry, redirects: Sequence[Redirect]) -> list[Redirect]:
    """Replace each redirected source in `poetry.pool` by its mirror; return those replaced.

    The same name and priority: every dependency pinned to the source and every locked
    package naming it now reaches the mirror. A source already replaced stays as it is.
    """
    pool = poetry.pool
    done = []
    for redirect in redirects:
        if not pool.has_repository(redirect.name):
            continue
        current = pool.repository(redirect.name)
        if isinstance(current, MirroredRepository):
            continue
        priority = pool.get_priority(redirect.name)
        pool.remove_repository(redirect.name)
        pool.add_repository(MirroredRepository(redirect, poetry), priority=priority)
        # The installer's downloads find credentials (`http-basic.<name>`) by URL through the
        # `repositories` setting, which Poetry fills with each source's committed URL.
        poetry.config.merge({"repositories": {redirect.name: {"url": redirect.mirror}}})
        done.append(redirect)
    return done
