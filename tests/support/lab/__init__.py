"""The lab: a real miniature of a Foreman/Katello server's serving path, on loopback only.

Apache httpd (event MPM, the installer's proxy layout) -> Puma (Debian's) running a small Rack app with the
registration, API and pull-REX endpoints in their real call shapes -> ActiveRecord's connection pool -> a
throwaway PostgreSQL cluster; the app calls a Candlepin-like backend (Puma with a capped thread pool and
fixed service times); Apache serves static repository content under ``/pulp/content``; mosquitto runs as its
own instance under a descriptor limit. Only the application logic stands in for Foreman.

    with Lab(puma_workers=2, puma_threads=5, pool=5) as lab:
        lab.url          # http://127.0.0.1:PORT (Apache)
        lab.mqtt         # ("127.0.0.1", PORT) (mosquitto)
        lab.logs         # a server root: var/log/foreman/production.log, var/log/httpd/..., var/log/candlepin/...
        lab.credentials  # environment for `foretune load` (FORETUNE_LOAD_JWT, FORETUNE_LOAD_TOKEN)

Everything lives under one temporary directory and every process is stopped (by its own pid) on exit.
"""

from __future__ import annotations

import contextlib
import ctypes
import grp
import gzip
import hashlib
import json
import os
import pwd
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import TracebackType

from tests.support import pgcluster

APP = Path(__file__).resolve().parent / "app"
MODULES = Path("/usr/lib/apache2/modules")
LOOPBACK = "127.0.0.1"
ORGANIZATION = "Lab"
ACTIVATION_KEY = "lab-key"
CONTENT_PATH = f"/pulp/content/{ORGANIZATION}/Library/custom/lab/lab-repo"
REQUIRED = {"apache2": "apache2", "puma": "puma", "ruby": "ruby", "mosquitto": "mosquitto", "openssl": "openssl"}


class LabError(RuntimeError):
    """A lab component did not start."""


def missing_tools() -> list[str]:
    """Debian packages the lab needs that are not installed."""
    missing = [pkg for tool, pkg in REQUIRED.items() if not shutil.which(tool)]
    if not (MODULES / "mod_mpm_event.so").exists() and "apache2" not in missing:
        missing.append("apache2")
    ruby_libs = subprocess.run(["ruby", "-e", 'require "active_record"; require "pg"'], capture_output=True,
                               check=False) if shutil.which("ruby") else None
    if ruby_libs is None or ruby_libs.returncode:
        missing += ["ruby-activerecord", "ruby-pg"]
    return missing


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


def _wait_port(port: int, proc: subprocess.Popen[bytes], name: str, log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LabError(f"{name} exited with status {proc.returncode}: {_tail(log)}")
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex((LOOPBACK, port)) == 0:
                return
        time.sleep(0.05)
    raise LabError(f"{name} did not listen on {LOOPBACK}:{port} within {timeout:.0f} s: {_tail(log)}")


def _wait_path(path: Path, proc: subprocess.Popen[bytes], name: str, log: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise LabError(f"{name} exited with status {proc.returncode}: {_tail(log)}")
        if path.exists():
            return
        time.sleep(0.05)
    raise LabError(f"{name} did not create {path} within {timeout:.0f} s: {_tail(log)}")


def _tail(path: Path, lines: int = 5) -> str:
    try:
        return " / ".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _die_with_parent() -> None:
    """In a child before exec: get SIGTERM when the process that started the lab dies (Linux prctl)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _apache_user() -> str:
    for name in ("www-data", "apache", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    return "nobody"


class Lab:
    """Start the lab on enter, stop it on exit. The knobs are the tunables foretune plans.

    ``puma_workers``/``puma_threads``: Puma's cluster size and threads per worker (min = max, as the
    installer sets them); ``pool``: ActiveRecord's pool per worker (``db_pool``) and ``checkout_timeout``
    its wait; ``server_limit``/``threads_per_child``/``max_request_workers``/``listen_backlog``: the event
    MPM; ``max_connections``: PostgreSQL's; ``backend_threads``: the Candlepin-like backend's thread cap
    (Tomcat's maxThreads), ``backend_ms``/``consumer_create_ms`` its service times; ``mosquitto_nofile``:
    mosquitto's descriptor limit (LimitNOFILE); ``packages``/``package_kib``: the static repository.
    """

    def __init__(self, *, puma_workers: int = 2, puma_threads: int = 5, pool: int | None = None,
                 checkout_timeout: float = 5.0, server_limit: int = 4, threads_per_child: int = 16,
                 max_request_workers: int | None = None, listen_backlog: int = 511, max_connections: int = 100,
                 backend_threads: int = 16, backend_ms: float = 10.0, consumer_create_ms: float = 100.0,
                 mosquitto_nofile: int = 1024, packages: int = 20, package_kib: int = 64) -> None:
        self.puma_workers = puma_workers
        self.puma_threads = puma_threads
        self.pool = puma_threads if pool is None else pool
        self.checkout_timeout = checkout_timeout
        self.threads_per_child = threads_per_child
        self.max_request_workers = max_request_workers or server_limit * threads_per_child
        self.server_limit = max(server_limit, -(-self.max_request_workers // threads_per_child))
        self.listen_backlog = listen_backlog
        self.max_connections = max_connections
        self.backend_threads = backend_threads
        self.backend_ms = backend_ms
        self.consumer_create_ms = consumer_create_ms
        self.mosquitto_nofile = mosquitto_nofile
        self.packages = packages
        self.package_kib = package_kib
        self.jwt = secrets.token_urlsafe(24)
        self.api_token = secrets.token_urlsafe(24)
        self.root = Path()
        self.port = 0
        self.mqtt_port = 0
        self._procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self._cluster: pgcluster.Cluster | None = None

    # -- what callers use -------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def mqtt(self) -> tuple[str, int]:
        return (LOOPBACK, self.mqtt_port)

    @property
    def logs(self) -> Path:
        """A server root holding the lab's logs where a Foreman server keeps them."""
        return self.root / "server"

    @property
    def production_log(self) -> Path:
        return self.logs / "var/log/foreman/production.log"

    @property
    def credentials(self) -> dict[str, str]:
        """Environment variables `foretune load` reads its credentials from."""
        return {"FORETUNE_LOAD_JWT": self.jwt, "FORETUNE_LOAD_USER": "admin", "FORETUNE_LOAD_TOKEN": self.api_token}

    @property
    def content_path(self) -> str:
        return CONTENT_PATH

    def psql(self, sql: str) -> str:
        """Run ``sql`` in the lab's ``foreman`` database; its output (unaligned, tuples only)."""
        assert self._cluster is not None
        psql = pgcluster.find_pg_bin("psql") or "psql"
        out = subprocess.run([psql, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", str(self._cluster.sockdir),
                              "-p", str(self._cluster.port), "-U", "postgres", "-d", "foreman", "-c", sql],
                             capture_output=True, text=True, check=True)
        return out.stdout.strip()

    # -- lifecycle --------------------------------------------------------------------------------

    def __enter__(self) -> Lab:
        missing = missing_tools()
        if missing:
            raise LabError(f"the lab needs Debian packages {' '.join(sorted(set(missing)))} (python3 dev.py test installs them)")
        self.root = Path(tempfile.mkdtemp(prefix="foretune-lab-"))
        os.chmod(self.root, 0o755)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def _start(self) -> None:
        for sub in ("var/log/foreman", "var/log/httpd", "var/log/candlepin", "var/log/mosquitto"):
            (self.logs / sub).mkdir(parents=True)
        run = self.root / "run"
        run.mkdir()
        os.chmod(run, 0o755)
        with ThreadPoolExecutor(1) as pool:  # initdb takes seconds: overlap it with the other set-up
            cluster = pool.submit(pgcluster.start, settings={"max_connections": str(self.max_connections)})
            try:
                self._certificates()
                self._content()
                self._stub()
                backend_port = self._start_backend()
            finally:
                self._cluster = cluster.result()
        subprocess.run([pgcluster.find_pg_bin("createdb") or "createdb", "-h", str(self._cluster.sockdir), "-p",
                        str(self._cluster.port), "-U", "postgres", "foreman"], check=True, capture_output=True)
        self.psql("CREATE TABLE hosts (id bigserial PRIMARY KEY, name text NOT NULL, uuid text UNIQUE, "
                  "organization text, build boolean, registered_at timestamptz, profile text)")
        self._start_puma(backend_port)
        self._start_apache()
        self._start_mosquitto()

    def _spawn(self, name: str, argv: list[str], log: Path, env: dict[str, str] | None = None,
               nofile: int | None = None) -> subprocess.Popen[bytes]:
        def limit() -> None:
            os.setsid()
            _die_with_parent()
            if nofile is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

        with open(log, "ab") as out:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.root,
                                    env={**os.environ, "TZ": "UTC", **(env or {})}, preexec_fn=limit)
        self._procs.append((name, proc))
        return proc

    def _certificates(self) -> None:
        """The identity certificate every consumer gets back (one for all: the lab does not check it)."""
        certs = self.root / "certs"
        certs.mkdir()
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                        "/CN=lab-consumer", "-keyout", str(certs / "id.key"), "-out", str(certs / "id.pem")],
                       check=True, capture_output=True)

    def _content(self) -> None:
        """A yum repository: repomd.xml, primary and filelists, and ``packages`` files of ``package_kib``."""
        repo = self.root / "content" / CONTENT_PATH.removeprefix("/pulp/content/")
        (repo / "repodata").mkdir(parents=True)
        (repo / "Packages" / "l").mkdir(parents=True)
        names = [f"lab-package-{i}-1.0-1.noarch.rpm" for i in range(self.packages)]
        payload = os.urandom(self.package_kib * 1024)
        for name in names:
            (repo / "Packages" / "l" / name).write_bytes(payload)
        primary = gzip.compress("".join(f'<package type="rpm"><name>{n}</name><location href="Packages/l/{n}"/></package>\n'
                                        for n in names).encode())
        filelists = gzip.compress("".join(f'<package name="{n}"><file>/usr/share/lab/{n}</file></package>\n'
                                          for n in names).encode())
        (repo / "repodata" / "primary.xml.gz").write_bytes(primary)
        (repo / "repodata" / "filelists.xml.gz").write_bytes(filelists)
        entries = "".join(f'<data type="{kind}"><checksum type="sha256">{hashlib.sha256(data).hexdigest()}</checksum>'
                          f'<location href="repodata/{kind}.xml.gz"/></data>'
                          for kind, data in (("primary", primary), ("filelists", filelists)))
        (repo / "repodata" / "repomd.xml").write_text(f'<?xml version="1.0"?><repomd>{entries}</repomd>\n')
        for path in (self.root / "content").rglob("*"):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        os.chmod(self.root / "content", 0o755)

    def _stub(self) -> None:
        """Fixed JSON answers for the API mix under ``/stub`` (Apache alone): a target that costs next to nothing,
        to measure a load generator apart from the server it loads."""
        stub = self.root / "stub"
        stub.mkdir()
        hosts = {"total": 20, "page": 1, "per_page": 20, "results": [{"id": i, "name": f"stub-{i}"} for i in range(1, 21)]}
        answers = {"hosts": hosts, "host": {"id": 1, "name": "stub-1"}, "organizations": {"results": [{"id": 1}]},
                   "dashboard": {"total_hosts": 20}, "status": {"result": "ok"}}
        for name, body in answers.items():
            (stub / f"{name}.json").write_text(json.dumps(body))
            os.chmod(stub / f"{name}.json", 0o644)
        os.chmod(stub, 0o755)

    def _start_backend(self) -> int:
        port = free_port()
        log = self.root / "candlepin-puma.log"
        proc = self._spawn("candlepin", ["puma", "--environment", "production", "--threads",
                                         f"{self.backend_threads}:{self.backend_threads}", "--bind",
                                         f"tcp://{LOOPBACK}:{port}?backlog=100", "--pidfile", str(self.root / "run/candlepin.pid"),
                                         str(APP / "candlepin.ru")], log,
                           env={"LAB_CANDLEPIN_LOG": str(self.logs / "var/log/candlepin/candlepin.log"),
                                "LAB_BACKEND_MS": str(self.backend_ms), "LAB_CONSUMER_CREATE_MS": str(self.consumer_create_ms)})
        _wait_port(port, proc, "the Candlepin-like backend", log)
        return port

    def _start_puma(self, backend_port: int) -> None:
        assert self._cluster is not None
        sock = self.root / "run" / "foreman.sock"
        config = self.root / "puma.rb"
        workers = f"workers {self.puma_workers}\n" if self.puma_workers > 0 else ""
        config.write_text(f"{workers}threads {self.puma_threads}, {self.puma_threads}\n"
                          f"bind 'unix://{sock}?umask=0000&backlog=1024'\n"
                          f"environment 'production'\npidfile '{self.root / 'run/foreman.pid'}'\n"
                          f"rackup '{APP / 'foreman.ru'}'\n")
        log = self.root / "foreman-puma.log"
        proc = self._spawn("puma", ["puma", "--config", str(config)], log, env={
            "LAB_PRODUCTION_LOG": str(self.production_log), "LAB_BACKEND_URL": f"http://{LOOPBACK}:{backend_port}",
            "LAB_JWT": self.jwt, "LAB_API_TOKEN": self.api_token,
            "LAB_ID_CERT": str(self.root / "certs/id.pem"), "LAB_ID_KEY": str(self.root / "certs/id.key"),
            "LAB_PGHOST": str(self._cluster.sockdir), "LAB_PGPORT": str(self._cluster.port),
            "LAB_POOL": str(self.pool), "LAB_CHECKOUT_TIMEOUT": str(self.checkout_timeout)})
        _wait_path(sock, proc, "Puma", log)
        # workers boot after the socket exists: wait until one answers through the socket
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise LabError(f"Puma exited with status {proc.returncode}: {_tail(log)}")
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(5)
                try:
                    s.connect(str(sock))
                    s.sendall(b"GET /rhsm/ HTTP/1.0\r\n\r\n")
                    if s.recv(12).startswith(b"HTTP/1.0 200") or s.recv(12):
                        return
                except OSError:
                    pass
            time.sleep(0.1)
        raise LabError(f"Puma did not answer within 30 s: {_tail(log)}")

    def _start_apache(self) -> None:
        self.port = free_port()
        apache = self.root / "apache"
        apache.mkdir()
        os.chmod(apache, 0o755)
        logs = self.logs / "var/log/httpd"
        modules = ("mpm_event", "authz_core", "alias", "mime", "proxy", "proxy_http", "dir")
        loads = "".join(f"LoadModule {m}_module {MODULES / f'mod_{m}.so'}\n" for m in modules)
        user = _apache_user()
        sock = self.root / "run" / "foreman.sock"
        (apache / "httpd.conf").write_text(f"""{loads}ServerRoot {apache}
ServerName lab.example.com
DefaultRuntimeDir {apache}
PidFile {apache}/httpd.pid
Mutex file:{apache} default
User {user}
Group {grp.getgrgid(pwd.getpwnam(user).pw_gid).gr_name}
Listen {LOOPBACK}:{self.port}
ListenBacklog {self.listen_backlog}
Timeout 900
KeepAlive On
<IfModule mpm_event_module>
    StartServers {self.server_limit}
    ServerLimit {self.server_limit}
    ThreadsPerChild {self.threads_per_child}
    ThreadLimit {self.threads_per_child}
    MaxRequestWorkers {self.max_request_workers}
    MinSpareThreads {self.threads_per_child}
    MaxSpareThreads {self.server_limit * self.threads_per_child}
    MaxConnectionsPerChild 0
</IfModule>
ErrorLog {logs}/foreman-ssl_error_ssl.log
LogLevel warn
LogFormat "%h %l %u %t \\"%r\\" %>s %b \\"%{{Referer}}i\\" \\"%{{User-Agent}}i\\"" combined
CustomLog {logs}/foreman-ssl_access_ssl.log combined
TypesConfig /etc/mime.types
<Directory />
    Require all denied
</Directory>
Alias /pulp/content {self.root / 'content'}
<Directory {self.root / 'content'}>
    Require all granted
</Directory>
AliasMatch "^/stub/api/v2/hosts$" "{self.root / 'stub'}/hosts.json"
AliasMatch "^/stub/api/v2/hosts/[0-9]+$" "{self.root / 'stub'}/host.json"
AliasMatch "^/stub/api/v2/(organizations|dashboard|status)$" "{self.root / 'stub'}/$1.json"
<Directory {self.root / 'stub'}>
    Require all granted
</Directory>
ProxyRequests Off
ProxyPreserveHost On
ProxyPass /pulp/content !
ProxyPass /stub !
ProxyPass / unix:{sock}|http://foreman/ retry=0 timeout=900
ProxyPassReverse / unix:{sock}|http://foreman/
<Location />
    Require all granted
</Location>
""")
        log = self.root / "apache.log"
        proc = self._spawn("apache", ["apache2", "-f", str(apache / "httpd.conf"), "-DFOREGROUND"], log)
        _wait_port(self.port, proc, "Apache httpd", log)

    def _start_mosquitto(self) -> None:
        self.mqtt_port = free_port()
        conf = self.root / "mosquitto.conf"
        conf.write_text(f"listener {self.mqtt_port} {LOOPBACK}\nallow_anonymous true\npersistence false\n"
                        "max_connections -1\nlog_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n"
                        "user root\n")
        log = self.logs / "var/log/mosquitto/mosquitto.log"
        proc = self._spawn("mosquitto", ["mosquitto", "-c", str(conf)], log, nofile=self.mosquitto_nofile)
        _wait_port(self.mqtt_port, proc, "mosquitto", log)

    def cpu_seconds(self) -> dict[str, float]:
        """CPU seconds (user + system) each component has used so far: its process and every descendant, with the
        children they have reaped (/proc/PID/stat), so a run's demand per request is the difference over the run."""
        parents: dict[int, int] = {}
        spent: dict[int, float] = {}
        tick = os.sysconf("SC_CLK_TCK")
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # ended meanwhile
            parents[int(entry.name)] = int(fields[1])
            spent[int(entry.name)] = sum(int(x) for x in fields[11:15]) / tick
        roots = dict(self.processes())
        if self._cluster is not None:
            with contextlib.suppress(OSError, ValueError, IndexError):
                roots["postgresql"] = int((self._cluster.datadir / "postmaster.pid").read_text().split()[0])
        totals: dict[str, float] = {}
        for name, root in roots.items():
            tree, frontier = {root}, [root]
            while frontier:
                frontier = [pid for pid, ppid in parents.items() if ppid in frontier and pid not in tree]
                tree.update(frontier)
            totals[name] = sum(spent.get(pid, 0.0) for pid in tree)
        return totals

    def processes(self) -> Iterator[tuple[str, int]]:
        """(component, pid) of every process the lab started."""
        for name, proc in self._procs:
            yield name, proc.pid

    def stop(self) -> None:
        """Stop every process the lab started (its own process groups, by pid) and remove its files."""
        for _name, proc in reversed(self._procs):
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for _name, proc in reversed(self._procs):
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        self._procs.clear()
        if self._cluster is not None:
            pgcluster.stop(self._cluster)
            self._cluster = None
        if self.root != Path() and self.root.exists():
            shutil.rmtree(self.root, ignore_errors=True)
