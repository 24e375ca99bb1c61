"""Import hubplan's NetBox files into a real NetBox through its own bulk-import web views,
and count per file the rows NetBox accepted and rejected (``make netbox-check``).

What it does, on loopback only, each step bounded in time:

1. Debian's PostgreSQL, Redis and debootstrap are installed with apt-get when missing.
2. NetBox (``NETBOX_VERSION`` from PyPI) needs Python >= 3.12. Where the host's python3 is
   older (Debian 12 has 3.11), a minimal Debian 13 root with its python3 is made with
   debootstrap under ``WORK`` and NetBox runs there (chroot: same network, same loopback).
   NetBox's own venv is separate from hubplan's ``.venv``. ``psycopg[c]`` is swapped for
   ``psycopg[binary]`` (no compiler needed).
3. A private PostgreSQL cluster with throwaway-database settings (``PG_THROWAWAY``) and a
   Redis on loopback ports, a ``configuration.py`` (random SECRET_KEY, the DB on
   127.0.0.1, DEBUG off), ``netbox migrate``, a superuser.
4. For each plan a fresh database (the migrated schema is kept under ``WORK`` after the
   first run) and NetBox's production server, gunicorn, with ``--workers`` processes on
   127.0.0.1; the script logs in and POSTs each CSV to ``/<app>/<model>/import/`` in
   import order, in chunks of at most ``CHUNK_ROWS`` rows, ``--workers`` chunks at a time
   (one web request each; NetBox imports a chunk whole or not at all, so a rejected chunk
   counts all its rows as rejected, and the first reasons are printed). Every row goes
   through NetBox's own import form, its validation, change log and search index.
5. Prints per file: rows, accepted, rejected, seconds, rows/s, and the rack power
   utilisation NetBox shows for the plan's first rack; exits 1 if any row was rejected or
   left unimported at the time limit (``--deadline-s``). Stops the servers it started in
   every case.

Where the time goes (NetBox 4.7.3, profiled with cProfile on its import view in one
process, 16K plan, 2 cores): a device takes ~60 ms (17 rows/s), an interface ~50 ms
(18-20 rows/s, 15 SQL queries), a cable ~175 ms (5-6 rows/s, ~97 SQL queries). Of an
interface, saving is 64 % (the change-log record alone 26 %: NetBox serialises every new
object) and form validation with its lookups 35 %; Python, not PostgreSQL, is the cost
(the process waits on the database ~20 % of the time). Of saving a cable, 60 % is
writing its two terminations and updating both interfaces; path tracing follows. None of this can be
turned off in a NetBox deployment (change logging and search indexing are always on;
DEBUG, metrics and event rules are already off or empty), so the speedups are:

============================================  ===========================================
change                                        interfaces/s (same NetBox, same rows)
============================================  ===========================================
runserver, one chunk at a time, a GET of the  ~24 (16K run before; in one process 18-20)
form before each chunk
gunicorn, 2 workers, 2 chunks at once, no     57.6 (load ~2); the two cores both work
GET per chunk, PG fsync/synchronous_commit/   and one chunk's database waits overlap the
full_page_writes off                          other's Python
3 workers, 3 chunks at once                   39 (load 4-5 from other jobs)
4 workers, 4 chunks at once                   17 (load 4-5): more workers than cores lose
500-row chunks instead of 250                 one 500-row chunk ran at 34.6 against
                                              18-20 in one process, but on other rows
                                              under other load: not a clean measure, so
                                              250 is kept (a rejected chunk names fewer
                                              rows)
============================================  ===========================================

Hence ``WORKERS = 2`` (the machine's cores). The 16K plan's ~311 k rows then need about
2-3 hours on two free cores, cables (77,565) being half of it; on a machine shared with
other work at lower priority (``nice``) it takes correspondingly longer.

Resuming (``--resume``): a plan that takes longer than one sitting (the 16K plan) is
imported in several. Its PostgreSQL cluster is then kept under ``WORK/kept`` (not in a
temporary folder), one database per plan, and ``WORK/kept/progress.json`` records each
chunk NetBox accepted, with a digest of the plan's files. A later run with ``--resume``
starts NetBox on that database and posts only the chunks not yet accepted; it refuses to
resume when the files differ (a changed plan or hubplan), since the rows already in
NetBox would no longer be the plan's. The counts printed add up every sitting's chunks.
Every row still goes through NetBox's own import view once. ``--fresh`` drops what was
kept.

Usage: ``python scripts/netbox_check.py [--plans default pretrain-16k gb200-nvl72] [--chunk 250]
[--workers 2] [--deadline-s 5400] [--resume] [--fresh]``
"""

from __future__ import annotations

import argparse
import hashlib
import html
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

NETBOX_VERSION = "4.7.3"  # PyPI publishes NetBox from 4.7.0 on: the nearest to 4.6.x
WORK = Path(os.environ.get("HUBPLAN_NETBOX_WORK", "/var/tmp/hubplan-netbox"))
CHROOT = WORK / "root"
NB_VENV = "/opt/netbox-venv"  # inside CHROOT (or on the host with Python >= 3.12)
NB_ROOT = "/opt/netbox-root"
PG_PORT, REDIS_PORT, WEB_PORT = 54329, 63799, 8765
CHUNK_ROWS = 250
REQUEST_TIMEOUT_S = 900
# A throwaway database: nothing of it must survive a crash, so PostgreSQL need not flush
# (fsync, synchronous_commit, full-page writes) nor keep WAL for replicas, and checkpoints
# can be rare. https://www.postgresql.org/docs/current/non-durability.html
PG_THROWAWAY = [
    "-c",
    "fsync=off",
    "-c",
    "synchronous_commit=off",
    "-c",
    "full_page_writes=off",
    "-c",
    "wal_level=minimal",
    "-c",
    "max_wal_senders=0",
    "-c",
    "checkpoint_timeout=30min",
    "-c",
    "max_wal_size=4GB",
    "-c",
    "shared_buffers=256MB",
]
# NetBox's production server (gunicorn, which NetBox installs) with this many worker
# processes, and as many chunks posted at once. See the measurements in the docstring.
WORKERS = 2
#: Where ``--resume`` keeps the PostgreSQL cluster and the progress between sittings.
KEPT = WORK / "kept"


def log(msg: str) -> None:
    print(f"[netbox-check {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def sh(cmd: list[str], timeout: float = 1800, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, check=True, timeout=timeout, **kw)


def apt_install(packages: list[str]) -> None:
    missing = [
        p
        for p in packages
        if subprocess.run(["dpkg", "-s", p], capture_output=True).returncode != 0
    ]
    if missing:
        log(f"apt-get install {' '.join(missing)}")
        sh(["apt-get", "update", "-qq"])
        sh(
            ["apt-get", "install", "-y", "-qq", *missing],
            env=os.environ | {"DEBIAN_FRONTEND": "noninteractive"},
        )


def host_python_ok() -> bool:
    out = subprocess.run(
        ["python3", "-c", "import sys; print(sys.version_info >= (3, 12))"],
        capture_output=True,
        text=True,
    )
    return out.stdout.strip() == "True"


class NetBoxHost:
    """Runs NetBox commands on the host or inside the Debian 13 root."""

    def __init__(self) -> None:
        self.chroot = not host_python_ok()
        self.base = CHROOT if self.chroot else Path("/")

    def path(self, inner: str) -> Path:
        return self.base / inner.lstrip("/")

    def cmd(self, args: list[str]) -> list[str]:
        return ["chroot", str(CHROOT), *args] if self.chroot else args

    def release(self) -> None:
        """Unmount the /dev and /proc that :meth:`prepare` mounted into the Debian root."""
        if not self.chroot:
            return
        for mnt in ("dev", "proc"):
            target = CHROOT / mnt
            if subprocess.run(["mountpoint", "-q", str(target)]).returncode == 0:
                subprocess.run(["umount", "--lazy", str(target)], check=False)

    def prepare(self) -> None:
        if self.chroot and not (CHROOT / "usr/bin/python3").exists():
            log("making a Debian 13 root with python3 (debootstrap)")
            sh(
                [
                    "debootstrap",
                    "--variant=minbase",
                    "--include=python3,python3-venv,ca-certificates",
                    "trixie",
                    str(CHROOT),
                    "http://deb.debian.org/debian",
                ],
                timeout=1800,
            )
        if self.chroot:
            shutil.copy("/etc/resolv.conf", CHROOT / "etc/resolv.conf")
            # The host's CA bundle (it may trust a proxy that PyPI traffic passes through).
            shutil.copy(
                "/etc/ssl/certs/ca-certificates.crt", CHROOT / "etc/ssl/certs/ca-certificates.crt"
            )
            for mnt, how in (("proc", ["-t", "proc", "proc"]), ("dev", ["--bind", "/dev"])):
                target = CHROOT / mnt
                if subprocess.run(["mountpoint", "-q", str(target)]).returncode != 0:
                    sh(["mount", *how, str(target)])
        venv_py = self.path(NB_VENV) / "bin/python"
        have = subprocess.run(
            self.cmd([NB_VENV + "/bin/netbox", "version"]), capture_output=True, text=True
        )
        if have.returncode == 0 and have.stdout.strip() == NETBOX_VERSION:
            return
        log(f"installing NetBox {NETBOX_VERSION} from PyPI into its own venv")
        if not venv_py.exists():
            sh(self.cmd(["python3", "-m", "venv", NB_VENV]))
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
        pip = [NB_VENV + "/bin/pip", "install", "-q", "--disable-pip-version-check"]
        sh(self.cmd([*pip, "--no-deps", f"netbox=={NETBOX_VERSION}"]), env=env)
        script = (
            "from importlib.metadata import requires\n"
            "for r in requires('netbox'):\n"
            "    if 'extra ==' not in r:\n"
            "        print(r.replace('psycopg[c,pool]', 'psycopg[binary,pool]'))"
        )
        reqs = subprocess.run(
            self.cmd([NB_VENV + "/bin/python", "-c", script]),
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        sh(self.cmd([*pip, *reqs]), env=env)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--plans", nargs="+", default=["default", "gb200-nvl72", "pretrain-16k"])
    ap.add_argument("--chunk", type=int, default=CHUNK_ROWS)
    ap.add_argument("--workers", type=int, default=WORKERS)
    ap.add_argument("--deadline-s", type=float, default=5400)
    resume_help = "keep the database and go on from the chunks already accepted"
    ap.add_argument("--resume", action="store_true", help=resume_help)
    ap.add_argument("--fresh", action="store_true", help="drop what --resume kept first")
    args = ap.parse_args(argv)
    if os.geteuid() != 0:
        print("make netbox-check runs as root (it installs Debian packages and a chroot)")
        return 2
    apt_install(["postgresql", "redis-server", "debootstrap"])
    nb = NetBoxHost()
    nb.prepare()
    procs: list[subprocess.Popen] = []
    tmp = Path(tempfile.mkdtemp(prefix="hubplan-netbox-"))
    try:
        return run(nb, procs, tmp, args)
    finally:
        for p in reversed(procs):
            stop(p)
        shutil.rmtree(tmp, ignore_errors=True)
        nb.release()


def start_services(nb: NetBoxHost, procs: list, tmp: Path, keep: bool = False) -> dict[str, str]:
    """PostgreSQL and Redis on loopback, and NetBox's configuration. With ``keep`` the
    PostgreSQL cluster is :data:`KEPT`'s (made there once), otherwise a throwaway one."""
    pgbin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    data = (KEPT if keep else tmp) / "pg"
    os.chmod(tmp, 0o755)
    if not (data / "PG_VERSION").exists():
        data.mkdir(parents=True, exist_ok=True)
        shutil.chown(data, "postgres", "postgres")
        sh(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(pgbin / "initdb"),
                "-D",
                str(data),
                "-A",
                "trust",
                "-U",
                "postgres",
                "-E",
                "UTF8",
            ],
            capture_output=True,
        )
    (data / "postmaster.pid").unlink(missing_ok=True)  # left by a sitting that was killed
    procs.append(
        subprocess.Popen(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                str(pgbin / "postgres"),
                "-D",
                str(data),
                "-h",
                "127.0.0.1",
                "-p",
                str(PG_PORT),
                "-k",
                str(data),
                *PG_THROWAWAY,
            ],
            stdout=open(tmp / "pg.log", "w"),
            stderr=subprocess.STDOUT,
        )
    )
    procs.append(
        subprocess.Popen(
            [
                "redis-server",
                "--bind",
                "127.0.0.1",
                "--port",
                str(REDIS_PORT),
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=open(tmp / "redis.log", "w"),
            stderr=subprocess.STDOUT,
        )
    )
    for _ in range(60):
        ok = (
            subprocess.run(
                [str(pgbin / "pg_isready"), "-h", "127.0.0.1", "-p", str(PG_PORT)],
                capture_output=True,
            ).returncode
            == 0
        )
        if ok:
            break
        time.sleep(1)
    conf = nb.path(NB_ROOT) / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "configuration.py").write_text(f"""
import os
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
DATABASE = {{'NAME': os.environ.get('HUBPLAN_NETBOX_DB', 'netbox'), 'USER': 'postgres',
            'PASSWORD': '', 'HOST': '127.0.0.1', 'PORT': {PG_PORT}, 'CONN_MAX_AGE': 300}}
REDIS = {{
    'tasks': {{'HOST': '127.0.0.1', 'PORT': {REDIS_PORT}, 'DATABASE': 0, 'SSL': False}},
    'caching': {{'HOST': '127.0.0.1', 'PORT': {REDIS_PORT}, 'DATABASE': 1, 'SSL': False}},
}}
SECRET_KEY = {secrets.token_urlsafe(50)!r}
CENSUS_REPORTING_ENABLED = False
ISOLATED_DEPLOYMENT = True
RELEASE_CHECK_URL = None
DATA_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024
""")
    return {"NETBOX_ROOT": NB_ROOT, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}


class Client:
    """A logged-in browser session on NetBox's web views."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect
        )

    def csrf(self) -> str:
        return next(c.value for c in self.jar if c.name == "csrftoken")

    def request(self, path: str, data: dict | None = None) -> tuple[int, str, str]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(
            self.base + path, data=body, headers={"Referer": self.base + path}
        )
        try:
            with self.opener.open(req, timeout=REQUEST_TIMEOUT_S) as r:
                return r.status, r.headers.get("Location", ""), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Location", ""), e.read().decode(errors="replace")

    def login(self, user: str, password: str) -> None:
        self.request("/login/")
        form = {"csrfmiddlewaretoken": self.csrf(), "username": user, "password": password}
        code, _, _ = self.request("/login/", form)
        if code != 302:
            raise SystemExit(f"login to NetBox failed ({code})")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


def reasons(page: str) -> list[str]:
    """The error messages of a rejected import page."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    found = re.findall(r"(Record \d+[^\n]{0,200}|Row \d+[^\n]{0,200})", text)
    if not found:
        alert = r'class="[^"]*(alert-danger|invalid-feedback|errorlist)[^"]*"[^>]*>(.{0,600})'
        m = re.search(alert, page, re.S)
        found = [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", m.group(2))).split())] if m else []
    return [" ".join(f.split()) for f in found] or ["rejected (no message found)"]


def post_chunk(client: Client, url: str, header: str, part: list[str]) -> tuple[bool, str]:
    """POST one chunk to NetBox's bulk-import view: (accepted, the page NetBox answered).
    The session's CSRF token holds for every request after login, so no GET per chunk."""
    try:
        code, _, page = client.request(
            url,
            {
                "csrfmiddlewaretoken": client.csrf(),
                "import_method": "direct",
                "data": "\n".join([header, *part]),
                "format": "csv",
                "csv_delimiter": ",",
            },
        )
    except OSError as e:  # the connection dropped or timed out: NetBox rolled the chunk back
        return False, f"Record ?: the request failed: {e}"
    return code == 302, page


def import_file(
    client: Client,
    url: str,
    path: Path,
    chunk: int,
    deadline: float,
    workers: int = 1,
    done: frozenset[int] = frozenset(),
    on_accept=lambda i: None,
) -> tuple[int, int, list]:
    """Import one CSV in chunks, ``workers`` chunks at a time (the rows of one file do not
    refer to each other, so its chunks are independent). A chunk rejected while others ran
    beside it (a lock timeout or deadlock between two transactions shows as a 500) is
    posted once more on its own; only a second rejection counts, with NetBox's reasons.
    Chunks whose first row is in ``done`` were accepted in an earlier sitting (counted,
    not posted); ``on_accept(first_row)`` is called for each chunk accepted now."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], lines[1:]
    starts = [i for i in range(0, len(rows), chunk) if i not in done]
    accepted = sum(len(rows[i : i + chunk]) for i in done if i < len(rows))
    why, retry = [], []

    def one(i: int) -> tuple[int, bool, str]:
        if time.monotonic() > deadline:
            return i, False, ""
        ok, page = post_chunk(client, url, header, rows[i : i + chunk])
        if ok:
            on_accept(i)
        return i, ok, page

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for i, ok, page in pool.map(one, starts):
            n = len(rows[i : i + chunk])
            if ok:
                accepted += n
            elif not page:
                why.append(f"rows {i + 1}-{i + n}: not imported, the time limit is reached")
            else:
                retry.append(i)
    for i in retry:
        part = rows[i : i + chunk]
        ok, page = (
            (False, "") if time.monotonic() > deadline else post_chunk(client, url, header, part)
        )
        if ok:
            on_accept(i)
            accepted += len(part)
        elif not page:
            why.append(f"rows {i + 1}-{i + len(part)}: not imported, the time limit is reached")
        else:
            why += [f"rows {i + 1}-{i + len(part)}: {r}" for r in reasons(page)[:3]]
    return len(rows), accepted, why


def fresh_database(nb: NetBoxHost, env: dict) -> str:
    """An empty, migrated NetBox database (``env["HUBPLAN_NETBOX_DB"]``) with a superuser;
    returns the superuser's password. Each plan gets its own, so the plans' shared names
    (manufacturers, roles, device types, the 10.x prefixes NetBox keeps unique) do not
    collide."""
    netbox = NB_VENV + "/bin/netbox"
    run_env = ["env", *[f"{k}={v}" for k, v in env.items()]]
    db = env["HUBPLAN_NETBOX_DB"]
    pgbin = sorted(Path("/usr/lib/postgresql").glob("*/bin"))[-1]
    psql = [str(pgbin / "psql"), "-h", "127.0.0.1", "-p", str(PG_PORT), "-U", "postgres"]
    sh([*psql, "-q", "-c", f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)'], capture_output=True)
    sh([*psql, "-q", "-c", f'CREATE DATABASE "{db}"'], capture_output=True)
    # The empty, migrated schema is kept for the next run (migrating takes ~20 min on a
    # busy 2-core machine); the data of a run is never kept.
    schema = WORK / f"netbox-{NETBOX_VERSION}-migrated.sql"
    if schema.exists():
        log(f"loading the migrated schema from {schema}")
        sh([*psql, "-q", "-d", db, "-f", str(schema)], capture_output=True)
    log("netbox migrate (without a kept schema: about 20 minutes on 2 cores)")
    sh(nb.cmd([*run_env, netbox, "migrate", "--no-input"]), capture_output=True, timeout=2400)
    if not schema.exists():
        sh([str(pgbin / "pg_dump"), *psql[1:], "-d", db, "-f", f"{schema}.tmp"])
        os.replace(f"{schema}.tmp", schema)
    password = secrets.token_urlsafe(16)
    sh(
        nb.cmd(
            [
                *run_env,
                f"DJANGO_SUPERUSER_PASSWORD={password}",
                netbox,
                "createsuperuser",
                "--no-input",
                "--username",
                "hubplan",
                "--email",
                "hubplan@localhost",
            ]
        ),
        capture_output=True,
    )
    return password


def serve(nb: NetBoxHost, procs: list, tmp: Path, env: dict, workers: int, password: str) -> Client:
    """NetBox's web server on ``env``'s database and a client logged in as the superuser."""
    run_env = ["env", *[f"{k}={v}" for k, v in env.items()]]
    procs.append(
        subprocess.Popen(
            nb.cmd(
                [
                    *run_env,
                    NB_VENV + "/bin/gunicorn",
                    "--workers",
                    str(max(1, workers)),
                    "--timeout",
                    str(REQUEST_TIMEOUT_S),
                    "--bind",
                    f"127.0.0.1:{WEB_PORT}",
                    "netbox.wsgi",
                ]
            ),
            stdout=open(tmp / "web.log", "a"),
            stderr=subprocess.STDOUT,
        )
    )
    base = f"http://127.0.0.1:{WEB_PORT}"
    for _ in range(120):
        try:
            urllib.request.urlopen(base + "/login/", timeout=5)
            break
        except OSError:
            time.sleep(1)
    client = Client(base)
    client.login("hubplan", password)
    return client


# The files that need the interfaces. On the 16K plan they are 268 k of its 311 k rows
# (hours); importing every other file before them shows a rejection in those within the
# first hour. Each file still comes after the files its rows refer to.
LATE_FILES = ("interfaces", "cables", "ip_addresses")


def check_order(import_order: list[str] | tuple[str, ...]) -> list[str]:
    """hubplan's import order with the files that need the interfaces moved last.

    >>> check_order(["devices", "interfaces", "cables", "power_ports", "ip_addresses"])
    ['devices', 'power_ports', 'interfaces', 'cables', 'ip_addresses']
    """
    return [n for n in import_order if n not in LATE_FILES] + [
        n for n in import_order if n in LATE_FILES
    ]


#: Plans made from the default scenario with a few changes (``--plans gb200-nvl72``): the
#: training pool on GB200 NVL72 racks, whose trays the port map and IP plan name.
PLAN_CHANGES = {
    "gb200-nvl72": {
        "pools.training.accelerator": "GB200 186GB",
        "pools.training.gpus_per_server": 72,
        "pools.training.server": "GB200 NVL72",
    },
}


def plan_scenario(name: str):
    """The scenario of a ``--plans`` name: ``default``, a :data:`PLAN_CHANGES` key, or a
    file ``templates/scenarios/<name>.yaml``."""
    import hubplan

    if name == "default":
        return hubplan.default_scenario()
    if name in PLAN_CHANGES:
        return hubplan.default_scenario().with_changes(PLAN_CHANGES[name])
    return hubplan.load_scenario(ROOT / "templates" / "scenarios" / f"{name}.yaml")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


class Progress:
    """What ``--resume`` keeps between sittings (``KEPT/progress.json``): per plan the
    digest of its files, the database, the superuser's password, and per file the chunks
    NetBox accepted (by first row) and the seconds spent. Saved after every accepted chunk
    (atomically), so a sitting that is killed loses at most the chunks in flight."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.data = json.loads(path.read_text()) if path and path.exists() else {}

    def save(self) -> None:
        if self.path is None:
            return
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1))
        os.replace(tmp, self.path)

    def accept(self, plan: str, file: str, first_row: int) -> None:
        with self.lock:
            self.data[plan]["chunks"].setdefault(file, []).append(first_row)
            self.save()

    def spent(self, plan: str, file: str, seconds: float) -> float:
        """Add a sitting's seconds on ``file``; the total over every sitting."""
        with self.lock:
            took = self.data[plan]["seconds"].get(file, 0.0) + seconds
            self.data[plan]["seconds"][file] = took
            self.save()
            return took


def digest(files: dict[str, Path]) -> str:
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + files[name].read_bytes() + b"\0")
    return h.hexdigest()


def plan_sitting(nb: NetBoxHost, progress: Progress, plan_name: str, files, env, args):
    """The kept record of ``plan_name`` (its database, password and accepted chunks), a
    new one with a fresh database when there is none; None when the kept sitting's files
    differ from these (the plan or hubplan changed: it cannot be resumed)."""
    kept = progress.data.get(plan_name)
    if kept and kept["digest"] != digest(files):
        log(
            f"plan {plan_name}: its files differ from the kept sitting's (the plan or "
            "hubplan changed), so it cannot be resumed; run with --fresh"
        )
        return None
    if kept:
        log(f"plan {plan_name}: resuming in database {env['HUBPLAN_NETBOX_DB']}")
        return kept
    kept = {
        "digest": digest(files),
        "db": env["HUBPLAN_NETBOX_DB"],
        "password": fresh_database(nb, env),
        "chunks": {},
        "seconds": {},
    }
    if args.resume:
        progress.data[plan_name] = kept
        progress.save()
    return kept


def import_plan_files(client, files, plan_name, kept, progress, args, t0) -> int:
    """Import a plan's files in NetBox's order, printing a line per file; the rows rejected
    or not imported (past the deadline)."""
    from netbox_forms_snapshot import FORMS

    from hubplan.export.netbox import FORM_OF, IMPORT_ORDER

    failed = 0
    print(f"{'file':<16}{'rows':>8}{'accepted':>10}{'rejected':>10}  seconds  rows/s")
    for name in (n for n in check_order(IMPORT_ORDER) if n in files):
        if time.monotonic() - t0 > args.deadline_s:
            rows = len(files[name].read_text(encoding="utf-8").splitlines()) - 1
            print(f"{name:<16}{rows:>8}  not imported: the {args.deadline_s:.0f} s limit")
            failed += rows
            continue
        start = time.monotonic()
        rows, ok, why = import_file(
            client,
            FORMS[FORM_OF[name]][2],
            files[name],
            args.chunk,
            t0 + args.deadline_s,
            args.workers,
            done=frozenset(kept["chunks"].get(name, ())),
            on_accept=(lambda i, n=name, p=plan_name: progress.accept(p, n, i))
            if args.resume
            else (lambda i: None),
        )
        took = time.monotonic() - start
        if args.resume:
            took = progress.spent(plan_name, name, took)
        print(
            f"{name:<16}{rows:>8}{ok:>10}{rows - ok:>10}  {took:7.1f}  {ok / took:6.1f}",
            flush=True,
        )
        for w in why[:5]:
            print(f"    {w}")
        failed += rows - ok
    return failed


def report_rack_power(nb: NetBoxHost, plan, site: str, env) -> None:
    """Print NetBox's power utilisation of the plan's first rack beside the plan's figures."""
    rack = str(plan["power_allocation"]["rack"].iloc[0])
    alloc = plan["power_allocation"].set_index("rack").loc[rack]
    query = (
        "from dcim.models import Rack; "
        f"r = Rack.objects.filter(site__name={site!r}, name={rack!r}).first(); "
        "print(r.get_power_utilization() if r else 'rack not imported')"
    )
    netbox = NB_VENV + "/bin/netbox"
    shown = subprocess.run(
        nb.cmd(["env", *[f"{k}={v}" for k, v in env.items()], netbox, "shell", "-c", query]),
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout.strip()
    shown = shown.splitlines()[-1] if shown else "unknown"  # the shell prints a banner
    print(
        f"rack {rack}: NetBox power utilisation {shown} %; plan {alloc['allocated_kw']:g} "
        f"kW allocated of {alloc['supply_kw']:g} kW supply"
    )


def run(nb: NetBoxHost, procs: list, tmp: Path, args) -> int:
    import hubplan
    from hubplan.export import write_netbox

    t0 = time.monotonic()
    if args.fresh:
        shutil.rmtree(KEPT, ignore_errors=True)
    if args.resume:
        KEPT.mkdir(parents=True, exist_ok=True)
    progress = Progress(KEPT / "progress.json" if args.resume else None)
    base_env = start_services(nb, procs, tmp, keep=args.resume)
    failed = 0
    for plan_name in args.plans:
        plan = hubplan.build_plan(plan_scenario(plan_name))
        site = f"hubplan {plan_name}"
        files = write_netbox(plan, tmp / plan_name, site=site)
        db = "hubplan_" + re.sub(r"\W", "_", plan_name) if args.resume else "netbox"
        env = base_env | {"HUBPLAN_NETBOX_DB": db}
        kept = plan_sitting(nb, progress, plan_name, files, env, args)
        if kept is None:
            return 2
        client = serve(nb, procs, tmp, env, args.workers, kept["password"])
        log(f"plan {plan_name}: {len(files)} files")
        failed += import_plan_files(client, files, plan_name, kept, progress, args, t0)
        report_rack_power(nb, plan, site, env)
        stop(procs.pop())  # this plan's web server
    log(f"done in {time.monotonic() - t0:.0f} s; {failed} rows rejected or not imported")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    sys.exit(main())
