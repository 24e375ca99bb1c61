"""Names that other systems accept, made from any scenario, pool or service name.

Slurm, Kubernetes and NetBox each take only a few ASCII characters in a name; a client's
name may be Chinese. hubplan keeps the name's ASCII words and, where letters had to be
dropped or the name cut, adds a short SHA-256 digest of the whole name: no
transliteration offline (that needs a dictionary hubplan does not ship), so the digest
keeps two names apart and always gives the same result for the same name. Each exporter
sets its own separator, length and digest width; these are the parts they share.
"""

from __future__ import annotations

import hashlib
import re


def ascii_words(text: str) -> list[str]:
    """The runs of ASCII letters and digits in ``text``, lower case.

    >>> ascii_words("70B 训练集群 — Phase-2")
    ['70b', 'phase', '2']
    """
    return re.findall(r"[a-z0-9]+", text.lower())


def drops_letters(text: str) -> bool:
    """True when ``text`` has letters or digits outside ASCII (which a slug drops).

    >>> drops_letters("智算中心"), drops_letters("DGX H100 — 8 GPU")
    (True, False)
    """
    return any(not c.isascii() and c.isalnum() for c in text)


def name_digest(text: str, digits: int) -> str:
    """The first ``digits`` hex digits of the SHA-256 of ``text`` (UTF-8): the same as
    ``printf '%s' TEXT | sha256sum``.

    >>> name_digest("智算中心一期", 8)
    '27a6bf9b'
    """
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:digits]
