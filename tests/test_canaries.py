"""Canaries: a distinct secret planted in every place a secret hides, in every file type foretune reads;
every command and output format is run and no output may contain any of them.

The tree is the satellite-6.15 fixture plus planted lines; it is read as a sosreport directory,
as a tarball, and live (``collect`` with a fake root), and the snapshot is read back.
"""

from __future__ import annotations

import base64
import gzip
import os
import shutil
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from foretune.facts.collect import collect
from tests.conftest import REPO, run_cli

FIXTURE = REPO / "tests/fixtures/sosreports/satellite-6.15"


@dataclass
class Planted:
    root: Path
    canaries: dict[str, str] = field(default_factory=dict)  # canary -> archive-relative file holding it

    def secret(self, rel: str, tag: str) -> str:
        value = f"Qz{tag}Cn4ry{len(self.canaries):02d}"
        assert value not in self.canaries
        self.canaries[value] = rel
        return value

    def append(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)

    def replace(self, rel: str, old: str, new: str) -> None:
        path = self.root / rel
        text = path.read_text(encoding="utf-8")
        assert old in text, (rel, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")


def plant(root: Path) -> Planted:
    """Copy the fixture and plant one distinct secret per place and form."""
    shutil.copytree(FIXTURE, root, symlinks=True)
    p = Planted(root)
    s = p.secret
    hiera = "etc/foreman-installer/custom-hiera.yaml"
    p.append(hiera, (
        f"foreman::db_password: {s(hiera, 'HieraKv')}\n"
        f"foreman::initial_admin_password:\n  {s(hiera, 'HieraNextLine')}\n"
        f"foreman_proxy::oauth_consumer_secret: |\n  {s(hiera, 'HieraBlock')}\n  second line\n"
        f"foreman::plugin::tasks::api_token: >-\n  {s(hiera, 'HieraFolded')}\n"
        f"katello::api_tokens:\n  - {s(hiera, 'HieraList1')}\n  - {s(hiera, 'HieraList2')}\n"
        f"foreman::ldap_credentials:\n  bind_dn: cn=admin\n  bind_pw: {s(hiera, 'HieraNested')}\n"
        f"foreman::oauth_consumer_key: &oauth {s(hiera, 'HieraAnchor')}\n"
        "foreman::plugin::remote_execution::label: *oauth\n"
        f"foreman::db_url: postgres://foreman:{s(hiera, 'HieraUrl')}@db.example.com/foreman\n"
        f"foreman::registration_secret: \"{s(hiera, 'HieraQuoted')}\n  continued\"\n"))
    answers = "etc/foreman-installer/scenarios.d/satellite-answers.yaml"
    p.append(answers, (f"foreman_proxy_plugin_remote_execution_script:\n  ssh_identity_key_passphrase: {s(answers, 'AnswersPass')}\n"
                       f"  mqtt_password:\n    {s(answers, 'AnswersNext')}\n"))
    db = "etc/foreman/database.yml"
    p.append(db, f"  url: postgresql://foreman:{s(db, 'DbYmlUrl')}@localhost/foreman\n")
    p.append("etc/redis.conf", f"requirepass {s('etc/redis.conf', 'RedisRequire')}\n"
                               f"masterauth \"{s('etc/redis.conf', 'RedisMasterauth')}\"\n")
    pg = "var/lib/pgsql/data/postgresql.conf"
    p.append(pg, f"primary_conninfo = 'host=db2 user=rep password={s(pg, 'PgConninfo')} port=5432'\n")
    auto = "var/lib/pgsql/data/postgresql.auto.conf"
    p.append(auto, f"primary_conninfo = 'user=rep password={s(auto, 'PgAuto')} host=db3'\n")
    tomcat = "etc/tomcat/tomcat.conf"
    p.replace(tomcat, "-Dcom.redhat.fips=false", f"-Dcom.redhat.fips=false -Djavax.net.ssl.trustStorePassword={s(tomcat, 'JavaTrust')} "
              f"-Dcandlepin.keyStorePassword={s(tomcat, 'JavaKeystore')}")
    xml = "etc/tomcat/server.xml"
    p.replace(xml, 'keystorePass="********"', f'keystorePass="{s(xml, "XmlKeystore")}" truststorePassword="{s(xml, "XmlTrust")}"')
    unit = "etc/systemd/system/foreman.service.d/installer.conf"
    p.append(unit, f"Environment=FOREMAN_API_TOKEN={s(unit, 'UnitToken')}\n"
                   f"Environment=\"SOME_SECRET=a {s(unit, 'UnitQuoted')}\" \"LANG=C\"\n"
                   f"Environment=SMTP_KEY={s(unit, 'UnitKey')} SMTP_PASS={s(unit, 'UnitPass')}\n")
    show = "sos_commands/systemd/systemctl_show_service_--all"
    p.replace(show, "FOREMAN_PUMA_WORKERS=24", f"FOREMAN_PUMA_WORKERS=24 DJANGO_SECRET_KEY={s(show, 'ShowEnv')}")
    p.append(show, f"\nId=tomcat.service\nActiveState=active\nSubState=running\nMainPID=4242\n"
                   f"ExecStart={{ path=/usr/bin/java ; argv[]=/usr/bin/java -Djavax.net.ssl.keyStorePassword={s(show, 'ShowJava')} "
                   "-Xmx4g ; ignore_errors=no }\n")
    dynflow = "etc/foreman/dynflow/worker.yml"
    p.append(dynflow, f":redis_url: redis://:{s(dynflow, 'DynflowRedis')}@localhost:6379/6\n")
    sysconfig = "etc/sysconfig/dynflowd"
    p.append(sysconfig, f"DATABASE_URL=postgres://foreman:{s(sysconfig, 'SysconfigUrl')}@db/foreman\n"
                        f"export DB_PASS={s(sysconfig, 'SysconfigPass')}\n"
                        f"JAVA_PROPS=truststore.password={s(sysconfig, 'SysconfigCont')}\\\n    {s(sysconfig, 'SysconfigCont2')}\n")
    rex = "etc/foreman-proxy/settings.d/remote_execution_ssh.yml"
    p.append(rex, f":ssh_identity_key_passphrase: '{s(rex, 'RexPass')}'\n")
    hammer = "etc/hammer/cli.modules.d/foreman.yml"
    p.append(hammer, f"  :password: '{s(hammer, 'HammerPass')}'\n")
    metrics = "var/lib/foreman-maintain/satellite_metrics.yml"
    p.append(metrics, f"api_token: {s(metrics, 'MetricsToken')}\n")
    p.append("etc/mosquitto/mosquitto.conf", f"listener 1883\nremote_password {s('etc/mosquitto/mosquitto.conf', 'Mosquitto')}\n")
    p.append("etc/qpid/qpidd.conf", f"max-connections=65535\nsasl-password={s('etc/qpid/qpidd.conf', 'Qpid')}\n")
    p.append("etc/default/pulp_workers", f"PULP_CONCURRENCY=4\nPULP_SECRET_KEY={s('etc/default/pulp_workers', 'PulpWorkers')}\n")
    mongo = "etc/mongod.conf"
    p.append(mongo, f"net:\n  port: 27017\n  tls:\n    certificateKeyFilePassword: {s(mongo, 'Mongo')}\n")
    httpd = "etc/httpd/conf.d/05-foreman-ssl.conf"
    p.append(httpd, f"ProxyPass /backend http://svc:{s(httpd, 'HttpdUrl')}@backend.example.com/\n"
                    f"SSLPassPhraseDialog exec:{s(httpd, 'HttpdDialog')}\n")
    tasks = "sos_commands/foreman/foreman_tasks_tasks"
    p.append(tasks, "00000099-1b2c-4d5e-8f90-000000000099,ForemanTasks::Task::DynflowTask,"
                    f"\"Actions::RemoteExecution::Run {{\"\"password\"\":\"\"{s(tasks, 'TasksJson')}\"\"}}\","
                    "2024-02-09 00:12:01.000000,2024-02-09 00:12:01.000000,stopped,success,"
                    "00000099-1b2c-4d5e-8f90-000000000099,,2024-02-09 00:12:01.000000,,Run,4,2024-02-09 00:12:01.000000\n")
    sysctl = "sos_commands/kernel/sysctl_-a"
    p.append(sysctl, f"net.ipv4.tcp_fastopen_key = {s(sysctl, 'SysctlKey')}\n")
    mounts = "proc/mounts"
    p.append(mounts, f"//files/share /mnt/share cifs rw,relatime,username=svc,password={s(mounts, 'CifsMount')} 0 0\n")
    puma = "sos_commands/foreman/pumactl_stats"
    p.replace(puma, '{"started_at"', f'{{"control_auth_token": "{s(puma, "PumaToken")}", "started_at"')
    info = "sos_commands/redis/redis-cli_info"
    p.append(info, f"master_auth:{s(info, 'RedisInfo')}\n")
    p.append("etc/redis.conf", f"user default on >{s('etc/redis.conf', 'RedisAclPw')} ~* &* +@all\n"
                               f"user worker on #{s('etc/redis.conf', 'RedisAclHash')} >{s('etc/redis.conf', 'RedisAclPw2')} ~* -@all\n")
    p.append(httpd, f'RequestHeader set Authorization "Basic {s(httpd, "HttpdBasic")}"\n'
                    f'RequestHeader set Cookie "_session_id={s(httpd, "HttpdCookie")}"\n'
                    f'ProxyPass /x https://svc:{s(httpd, "HttpdProxyUrl")}@backend.example.com/x\n')
    p.append(db, f"  password: {s(db, 'DbYmlPass')}\n")
    p.append(pg, f"ssl_passphrase_command = 'echo {s(pg, 'PgPassphrase')}'\n")
    p.append(hiera, f"foreman::http_headers:\n  Authorization: Bearer {s(hiera, 'HieraBearer')}\n")
    p.append(dynflow, f":password: {s(dynflow, 'DynflowPass')}\n")
    p.append("etc/mosquitto/mosquitto.conf", f"bridge_psk {s('etc/mosquitto/mosquitto.conf', 'MosquittoPsk')}\n")
    p.append("etc/qpid/qpidd.conf", f"ssl-cert-db-password={s('etc/qpid/qpidd.conf', 'QpidDb')}\n")
    p.append("etc/default/pulp_workers", f"export PULP_DB_PASSWORD={s('etc/default/pulp_workers', 'PulpDbPass')}\n")
    p.append(mongo, f"security:\n  authorization: enabled\n  password: {s(mongo, 'MongoPass')}\n")
    p.replace(xml, 'keystorePass="', f'certificateKeystorePassword="{s(xml, "XmlCertKs")}" keystorePass="')
    p.append(hammer, f"  :oauth_secret: {s(hammer, 'HammerOauth')}\n")
    p.append(metrics, f"auth_token: {s(metrics, 'MetricsAuth')}\n")
    p.append(tomcat, f'JAVA_OPTS="$JAVA_OPTS -Djavax.net.ssl.keyStorePassword={s(tomcat, "JavaKs2")}"\n')
    plant_logs(p)
    return p


def plant_logs(p: Planted) -> None:
    """The logs foretune reads (``logs``, ``log_incidents``, the logs a snapshot carries), written now so a live read
    ships them: secrets placed by protocol words, not by key names."""
    import time

    s = p.secret
    now = time.localtime(time.time() - 1800)
    iso = time.strftime("%Y-%m-%dT%H:%M:%S", now)
    apache = time.strftime("%d/%b/%Y:%H:%M:%S %z", now)
    syslog = time.strftime("%b %e %H:%M:%S", now)
    pgtime = time.strftime("%Y-%m-%d %H:%M:%S UTC", now)
    cptime = time.strftime("%Y-%m-%d %H:%M:%S,000", now)
    prod = "var/log/foreman/production.log"
    p.append(prod, "".join([
        f'{iso} [I|app|a1b2c3d4] Started GET "https://admin:{s(prod, "ProdUrl")}@sat.example.com/api/v2/hosts" for 10.0.0.1\n',
        f"{iso} [I|app|a1b2c3d4] Processing by Api::V2::HostsController#index as JSON\n",
        f'{iso} [I|app|a1b2c3d4]   Parameters: {{"login"=>"admin", "password"=>"{s(prod, "ProdRuby")}", '
        f'"api_token"=>"{s(prod, "ProdRubyToken")}"}}\n',
        f"{iso} [D|app|a1b2c3d4]   Authorization: Bearer {s(prod, 'ProdBearer')}\n",
        f"{iso} [D|app|a1b2c3d4]   Authorization: Basic {s(prod, 'ProdBasic')}\n",
        f"{iso} [D|app|a1b2c3d4]   Cookie: locale=en; _session_id={s(prod, 'ProdCookie')}\n",
        f'{iso} [D|app|a1b2c3d4]   Headers: {{"HTTP_AUTHORIZATION"=>"Bearer {s(prod, "ProdHttpAuth")}"}}\n',
        f"{iso} [D|app|a1b2c3d4]   Set-Cookie: _session_id={s(prod, 'ProdSetCookie')}; path=/; HttpOnly\n",
        f'{iso} [D|app|a1b2c3d4]   Headers: {{"X-Auth-Token"=>"{s(prod, "ProdXAuth")}", "Accept"=>"json"}}\n',
        f"{iso} [D|app|a1b2c3d4]   Authorization: Negotiate {s(prod, 'ProdNegotiate')}\n",
        f"{iso} [I|app|a1b2c3d4] Completed 200 OK in 12ms (Views: 1.0ms | ActiveRecord: 2.0ms)\n",
        f'{iso} [I|app|e5f6a7b8] Started POST "/users/login?password={s(prod, "ProdQuery")}" for 10.0.0.2\n',
        f"{iso} [I|app|e5f6a7b8] Completed 302 Found in 5ms (ActiveRecord: 1.0ms)\n"]))
    candlepin = "var/log/candlepin/candlepin.log"
    p.append(candlepin, "".join([
        f"{cptime} [thread=http-nio-23443-exec-1] [req=1, org=, user=] INFO  org.candlepin.servlet.filter.logging."
        f"LoggingFilter - Request: verb=GET, uri=/candlepin/status headers: {{authorization=Bearer {s(candlepin, 'CpBearer')}}}\n",
        f"{cptime} [thread=http-nio-23443-exec-2] [req=2, org=, user=] INFO  org.candlepin.Foo - Authorization: Basic "
        f"{s(candlepin, 'CpBasic')}\n",
        f"{cptime} [thread=http-nio-23443-exec-3] [req=3, org=, user=] INFO  org.candlepin.Foo - broker "
        f"amqps://katello:{s(candlepin, 'CpAmqp')}@localhost:5671\n",
        f"{cptime} [thread=http-nio-23443-exec-4] [req=4, org=, user=] INFO  org.candlepin.Foo - Request: verb=GET, "
        f"uri=/candlepin/owners, time=12ms\n"]))
    access = "var/log/httpd/foreman-ssl_access_ssl.log"
    p.append(access, "".join(
        f'10.0.0.{i} - - [{apache}] "GET https://user{i}:{s(access, f"AccessUrl{i}")}@sat.example.com/pub/{i} HTTP/1.1" '
        f'200 10 "-" "curl/7.61.1"\n' for i in range(4)) +
        f'10.0.0.9 - - [{apache}] "GET /api/v2/hosts?access_token={s(access, "AccessQuery")} HTTP/1.1" 200 10 "-" "curl"\n')
    pglog = "var/lib/pgsql/data/log/postgresql-Mon.log"
    p.append(pglog, "".join([
        f"{pgtime} LOG:  statement: ALTER USER foreman WITH PASSWORD '{s(pglog, 'PgAlter')}';\n",
        f"{pgtime} LOG:  statement: CREATE ROLE candlepin LOGIN ENCRYPTED PASSWORD '{s(pglog, 'PgCreate')}';\n",
        f"{pgtime} LOG:  statement: ALTER ROLE pulp PASSWORD '{s(pglog, 'PgRole')}' VALID UNTIL 'infinity';\n",
        f"{pgtime} FATAL:  sorry, too many clients already\n"]))
    messages = "var/log/messages"
    p.append(messages, "".join([
        f"{syslog} sat backup.sh[42]: sshpass -p {s(messages, 'SshpassP')} rsync -a /var/lib/pgsql root@backup:/x\n",
        f"{syslog} sat backup.sh[43]: sshpass -v -p{s(messages, 'SshpassJoined')} ssh root@capsule\n",
        f"{syslog} sat curl[44]: curl -H 'Authorization: Bearer {s(messages, 'MsgBearer')}' https://sat/api\n",
        f"{syslog} sat app[45]: connect redis://:{s(messages, 'MsgRedisUrl')}@localhost:6379/0 failed\n",
        f"{syslog} sat redis[46]: ACL SETUSER alice on >{s(messages, 'MsgAcl')} ~cached:*\n",
        f"{syslog} sat cron[47]: PGPASSWORD={s(messages, 'MsgPgpass')} pg_dump foreman\n",
        f"{syslog} sat kernel: Out of memory: Killed process 4242 (java) total-vm:8000000kB\n",
        f"{syslog} sat sudo[48]: root : TTY=pts/0 ; PWD=/root ; USER=root ; COMMAND=/usr/sbin/satellite-installer "
        f"--foreman-initial-admin-password={s(messages, 'OptEquals')} --foreman-proxy-oauth-consumer-secret "
        f"{s(messages, 'OptSpace')}\n",
        f"{syslog} sat cron[49]: hammer --password {s(messages, 'HammerLong')} host list\n",
        f"{syslog} sat cron[50]: hammer -u admin -p {s(messages, 'HammerShort')} host list\n",
        f"{syslog} sat cron[51]: curl -s -u admin:{s(messages, 'CurlUser')} https://sat/api/status\n",
        f"{syslog} sat cron[52]: redis-cli -a {s(messages, 'RedisCliA')} info\n",
        f"{syslog} sat cron[53]: SSHPASS={s(messages, 'SshpassEnv')} sshpass -e ssh root@client\n"]))
    p.append(pglog, "".join([
        f"{pgtime} LOG:  statement: ALTER ROLE candlepin ENCRYPTED PASSWORD E'{s(pglog, 'PgEscape')}';\n",
        f"{pgtime} LOG:  statement: CREATE USER pulp PASSWORD $${s(pglog, 'PgDollar')}$$;\n"]))
    p.append(prod, "".join([
        f'{iso} [I|app|c1d2e3f4] Started GET "https://{s(prod, "ProdUrlToken")}@git.example.com/x.git" for 10.0.0.3\n',
        f'{iso} [D|app|c1d2e3f4]   Authorization: OAuth oauth_consumer_key="katello", oauth_signature="{s(prod, "ProdOauthSig")}"\n',
        f"{iso} [I|app|c1d2e3f4] Completed 200 OK in 3ms (ActiveRecord: 1.0ms)\n"]))
    p.append(access, f'10.0.0.8 - - [{apache}] "GET https://{s(access, "AccessUrlToken")}@sat.example.com/pub/t HTTP/1.1" '
                     '200 10 "-" "git/2.0"\n')
    httpd = "etc/httpd/conf.d/05-foreman-ssl.conf"
    p.append(httpd, f"RequestHeader set X-Api-Key {s(httpd, 'HttpdApiKey')}\n")
    hiera = "etc/foreman-installer/custom-hiera.yaml"
    p.append(hiera, "foreman::server_ssl_key_content: |\n  -----BEGIN RSA PRIVATE KEY-----\n"
                    f"  MIIEow{s(hiera, 'HieraPem1')}\n  {s(hiera, 'HieraPem2')}AAAB\n  -----END RSA PRIVATE KEY-----\n")


def leaks(text: str, canaries: dict[str, str]) -> list[str]:
    """Canaries found in ``text``, whole or in part (the distinctive middle of each)."""
    return [c for c in canaries if c in text or c[2:-2] in text]


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Planted:
    return plant(tmp_path_factory.mktemp("canaries") / "sosreport-sat-canary-2026")


@pytest.fixture(scope="module")
def tarball(planted: Planted, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("tarball") / "sosreport-sat-canary-2026.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        archive.add(planted.root, arcname=planted.root.name)
    return path


@pytest.fixture(scope="module")
def snapshot(planted: Planted, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("snapshot") / "canary.json.gz"
    collect(out, hosts=12000, environ={"PATH": "/nonexistent"}, root=str(planted.root))
    return out


def test_every_canary_was_planted_in_a_file_foretune_reads(planted: Planted) -> None:
    import fnmatch

    from foretune.host.specs import SPECS, sos_candidates, sos_patterns
    from foretune.logs.kinds import kind_of

    read = [p for spec in SPECS for p in (sos_patterns(spec) if spec.glob else sos_candidates(spec))]
    for canary, rel in planted.canaries.items():
        assert canary in (planted.root / rel).read_text(encoding="utf-8")
        assert any(fnmatch.fnmatch(rel, pattern) for pattern in read) or kind_of(rel), rel  # a spec, or a log


def test_each_planted_file_redacted_as_a_raw_text_holds_no_canary(planted: Planted) -> None:
    """What a snapshot stores for each file (and every excerpt is cut from): the whole text, redacted."""
    from foretune.host.redact import redact_text

    for rel in sorted(set(planted.canaries.values())):
        text = (planted.root / rel).read_text(encoding="utf-8")
        mine = {c: r for c, r in planted.canaries.items() if r == rel}
        assert leaks(redact_text(text), mine) == [], rel


def test_parsed_values_hold_no_canary(planted: Planted) -> None:
    """Parsed YAML (anchors and aliases included) as facts hold it, redacted as facts output does."""
    import yaml

    from foretune.host.redact import redact_data

    for rel in sorted({r for r in planted.canaries.values() if r.endswith((".yaml", ".yml"))}):
        data = yaml.safe_load((planted.root / rel).read_text(encoding="utf-8"))
        mine = {c: r for c, r in planted.canaries.items() if r == rel}
        assert leaks(repr(data), mine), rel  # the canaries are in the parsed data...
        assert leaks(repr(redact_data(data)), mine) == [], rel  # ...and not after redaction


def _status(label: str, box: tuple[str, ...]) -> int:
    """The exit status of each run, from what the planted tree holds: its messages log has an OOM kill and its
    PostgreSQL log "sorry, too many clients already", measured failures, so every audit exits 1; the other
    commands exit 0. A snapshot taken without rpm names no product (``box`` gives it to plan): audit refuses it in
    one line, an input error (2), whose text is searched for canaries like every other output."""
    if label.startswith("audit"):
        return 2 if box else 1
    return 0


def _outputs(source: str, tmp: Path, box: tuple[str, ...] = ()) -> dict[str, str]:
    """Every command and output format on ``source``: label -> stdout + stderr (+ files written).

    ``box``: plan options for what the source cannot tell (a live snapshot taken without rpm).
    """
    runs = {
        "facts table": ("facts", source, "--unknown"),
        "facts json": ("facts", source, "--format", "json"),
        "audit text": ("audit", source, "--hosts", "12000", "--verbose"),
        "audit json": ("audit", source, "--hosts", "12000", "--format", "json"),
        "audit html": ("audit", source, "--hosts", "12000", "--format", "html"),
        "audit markdown": ("audit", source, "--hosts", "12000", "--format", "markdown"),
        "plan table": ("plan", "--from", source, "--hosts", "12000", *box),
        "plan json": ("plan", "--from", source, "--hosts", "12000", *box, "--format", "json"),
        "plan hiera": ("plan", "--from", source, "--hosts", "12000", *box, "--format", "hiera"),
        "plan installer": ("plan", "--from", source, "--hosts", "12000", *box, "--format", "installer"),
        "audit hiera": ("audit", source, "--hosts", "12000", *box[:0], "--format", "hiera"),
        "logs text": ("logs", source),
        "logs json": ("logs", source, "--format", "json"),
        "logs html": ("logs", source, "--format", "html"),
        "logs markdown": ("logs", source, "--format", "markdown"),
    }
    seen: dict[str, str] = {}
    for label, argv in runs.items():
        result = run_cli(*argv)
        assert result.status == _status(label, box), (label, result.stderr)
        seen[label] = result.stdout + result.stderr
    for label, argv, name in (("facts --output", ("facts", source, "--format", "json"), "facts.json"),
                              ("plan --output", ("plan", "--from", source, "--hosts", "12000", *box), "plan.txt"),
                              ("logs --output", ("logs", source, "--format", "html"), "logs.html")):
        out_file = tmp / name
        result = run_cli(*argv, "--output", str(out_file))
        assert result.status == 0, (label, result.stderr)
        seen[label] = result.stdout + result.stderr + out_file.read_text(encoding="utf-8")
    fixes = tmp / "fixes"
    result = run_cli("audit", source, "--hosts", "12000", "--output-dir", str(fixes))
    assert result.status == _status("audit hiera", box), result.stderr
    if not box:
        seen["audit --output-dir"] = result.stdout + result.stderr + "".join(
            p.read_text(encoding="utf-8") for p in sorted(fixes.rglob("*")) if p.is_file())
    else:
        seen["audit --output-dir"] = result.stdout + result.stderr
    report = tmp / "report.html"
    result = run_cli("audit", source, "--hosts", "12000", "--format", "html", "--output", str(report))
    assert result.status == _status("audit html", box), result.stderr
    seen["audit --output"] = result.stdout + result.stderr + (report.read_text(encoding="utf-8") if not box else "")
    out = tmp / "apply"
    result = run_cli("plan", "--from", source, "--hosts", "12000", *box, "--out", str(out))
    assert result.status == 0, result.stderr
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert files
    seen["plan --out"] = result.stdout + result.stderr + "".join(p.read_text(encoding="utf-8") for p in files)
    return seen


def _render_outputs(source: str, planted: Planted, tmp: Path, box: tuple[str, ...] = ()) -> dict[str, str]:
    target = tmp / "custom-hiera.yaml"
    shutil.copyfile(planted.root / "etc/foreman-installer/custom-hiera.yaml", target)
    seen = {}
    for label, extra in (("render diff", ()), ("render --write", ("--write",))):
        result = run_cli("render", "--from", source, "--hosts", "12000", *box, "--merge-into", str(target), *extra)
        assert result.status == 0, (label, result.stderr)
        assert result.stdout.startswith("---"), result.stdout[:200]  # a diff was shown: the canaries were in its context
        seen[label] = result.stdout + result.stderr
        if extra:
            assert any(c in target.read_text(encoding="utf-8") for c in planted.canaries)  # the file keeps its own secrets
    return seen


def test_sosreport_directory_outputs_hold_no_canary(planted: Planted, tmp_path: Path) -> None:
    seen = _outputs(str(planted.root), tmp_path)
    seen.update(_render_outputs(str(planted.root), planted, tmp_path))
    assert "[redacted]" in seen["facts json"]
    assert {label: leaks(text, planted.canaries) for label, text in seen.items() if leaks(text, planted.canaries)} == {}


def test_tarball_outputs_hold_no_canary(planted: Planted, tarball: Path, tmp_path: Path) -> None:
    seen = _outputs(str(tarball), tmp_path)
    assert {label: leaks(text, planted.canaries) for label, text in seen.items() if leaks(text, planted.canaries)} == {}


def test_snapshot_holds_no_canary_yet_kept_every_planted_file(planted: Planted, snapshot: Path) -> None:
    import json

    text = gzip.decompress(snapshot.read_bytes()).decode("utf-8")
    assert leaks(text, planted.canaries) == []
    document = json.loads(text)
    raw, shipped = document["raw"], document["logs"]["files"]
    live_files = {rel for rel in planted.canaries.values() if not rel.startswith("sos_commands/")}
    for rel in live_files:
        location = "/" + rel
        stored = raw.get(location) or shipped.get(location)
        assert stored is not None, location  # read live and stored (a log: shipped), so the check above saw it
        planted_here = sum(1 for r in planted.canaries.values() if r == rel)
        assert stored.count("[redacted]") >= planted_here, (location, stored)


def test_at_least_ninety_canaries_over_twenty_five_files(planted: Planted) -> None:
    assert len(planted.canaries) >= 90
    assert len(set(planted.canaries.values())) >= 25


def test_outputs_from_the_snapshot_hold_no_canary(planted: Planted, snapshot: Path, tmp_path: Path) -> None:
    seen = _outputs(str(snapshot), tmp_path, ("--product", "satellite", "--version", "6.15", "--cpus", "16"))
    seen.update(_render_outputs(str(snapshot), planted, tmp_path, ("--product", "satellite", "--version", "6.15", "--cpus", "16")))
    assert {label: leaks(text, planted.canaries) for label, text in seen.items() if leaks(text, planted.canaries)} == {}


def test_collect_command_output_holds_no_canary(planted: Planted, tmp_path: Path) -> None:
    """The collect command itself (this host, whatever it holds) plus the canary tree's snapshot read back."""
    out = tmp_path / "host.json"
    result = run_cli("collect", "--out", str(out), environ={"PATH": os.environ.get("PATH", "")})
    assert result.status == 0, result.stderr
    assert leaks(result.stdout + result.stderr + out.read_text(encoding="utf-8"), planted.canaries) == []


def test_live_collect_redacts_processes_password_arguments(tmp_path: Path) -> None:
    """`ps auxwww` as a live collect stores it: a running process's password options are masked like any text."""
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", "--password=Wq7PsLong",
                              "-u", "admin:Wq7PsUser", "--foreman-proxy-oauth-consumer-secret", "Wq7PsSecret"])
    try:
        out = tmp_path / "host.json"
        result = run_cli("collect", "--out", str(out), environ={"PATH": os.environ.get("PATH", "")})
    finally:
        child.kill()
        child.wait()
    assert result.status == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert "time.sleep(120)" in text  # ps was stored, with this process in it
    assert "Wq7Ps" not in text + result.stdout + result.stderr


def test_render_diff_context_never_shows_the_files_secrets(tmp_path: Path) -> None:
    target = tmp_path / "custom-hiera.yaml"
    original = ("foreman::initial_admin_password: Wq7RenderKv\n"
                "foreman::foreman_service_puma_workers: 40\n"
                "foreman_proxy::oauth_consumer_secret: |\n  Wq7RenderBlock\n"
                "foreman::db_url: postgres://foreman:Wq7RenderUrl@db/foreman\n")
    target.write_text(original, encoding="utf-8")
    plan = ["--product", "satellite", "--version", "6.15", "--hosts", "15000", "--cpus", "16", "--ram", "64G"]
    result = run_cli("render", *plan, "--merge-into", str(target), "--write", "--prefer", "foretune")
    assert result.status == 0, result.stderr
    assert "-foreman::foreman_service_puma_workers: 40" in result.stdout
    assert " foreman::initial_admin_password: [redacted]" in result.stdout  # context line, masked
    assert "Wq7Render" not in result.stdout + result.stderr
    written = target.read_text(encoding="utf-8")
    assert all(secret in written for secret in ("Wq7RenderKv", "Wq7RenderBlock", "Wq7RenderUrl"))  # the file keeps them


@pytest.mark.parametrize("fmt", ["text", "json", "html", "markdown"])
def test_audit_reports_mask_secrets_a_rule_carries(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever a rule puts in a finding (message, values, evidence) is redacted before any format renders it."""
    from foretune.rules.base import Context, Evidence, Outcome, Status
    from foretune.rules.registry import get_rule

    rule = get_rule("thp-enabled")

    def leaky(ctx: Context) -> Outcome:
        return Outcome(Status.FAIL, "masterauth Wq7AuditMsg is set", current={"db_password": "Wq7AuditCur"},
                       recommended="-Djavax.net.ssl.keyStorePassword=Wq7AuditRec",
                       evidence=(Evidence("thp_enabled", "redis-cli -u redis://:Wq7AuditLoc@localhost info",
                                          "requirepass Wq7AuditEvidence"),))

    monkeypatch.setattr(rule, "check", leaky)
    result = run_cli("audit", str(FIXTURE), "--format", fmt, "--fail-on", "info", *(["--verbose"] if fmt == "text" else []))
    assert result.status == 1, result.stderr
    assert "thp-enabled" in result.stdout
    assert "Wq7Audit" not in result.stdout + result.stderr


def test_load_never_shows_its_credentials(tmp_path: Path) -> None:
    """`foretune load` against a server that echoes every request header back in a 500: the registration token,
    the access token (as given and inside Basic auth) and the credentials file never reach any output."""
    import http.server
    import threading

    from tests.load.conftest import load

    class Echo(http.server.BaseHTTPRequestHandler):
        def _echo(self) -> None:
            body = f"{self.requestline}\n{self.headers}".encode()
            self.send_response(500)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = _echo

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = {"FORETUNE_LOAD_JWT": "Wq7LoadJwt", "FORETUNE_LOAD_USER": "Wq7LoadUser", "FORETUNE_LOAD_TOKEN": "Wq7LoadToken"}
    creds = tmp_path / "creds"
    creds.write_text("FORETUNE_LOAD_JWT=Wq7LoadFileJwt\nFORETUNE_LOAD_TOKEN=Wq7LoadFileToken\n")
    basic = base64.b64encode(b"Wq7LoadUser:Wq7LoadToken").decode()
    try:
        outputs = []
        for fmt, scenario in (("json", ["api"]), ("markdown", ["registration", "--activation-key", "ak"])):
            run = load(*scenario, "--target", url, "--users", "1", "--duration", "1", "--yes", "--format", fmt, env=env)
            assert run.status == 1, run.stderr
            outputs.append(run.stdout + run.stderr)
        filed = load("registration", "--activation-key", "ak", "--target", url, "--users", "1", "--duration", "1",
                     "--yes", "--credentials", str(creds), "--format", "text")
        outputs.append(filed.stdout + filed.stderr)
        dry = run_cli("load", "registration", "--activation-key", "ak", "--target", url, "--dry-run", environ=env)
        outputs.append(dry.stdout + dry.stderr)
    finally:
        server.shutdown()
        server.server_close()
    assert any("500" in out for out in outputs)  # the echo was seen and reported
    for out in outputs:
        assert "Wq7Load" not in out
        assert basic not in out


def _collector_script(tmp: Path) -> Path:
    script = tmp / "foretune-collect.py"
    assert run_cli("collector", "--output", str(script)).status == 0
    return script


@pytest.mark.parametrize("python", ["python3", "python2.7"])
def test_collector_snapshot_holds_no_canary(python: str, planted: Planted, tmp_path: Path) -> None:
    """The one-file collector redacts with foretune's own rules, rewritten for old Pythons: same result."""
    import json
    import subprocess
    import sys

    from tests.support import oldpython

    interpreter = sys.executable if python == "python3" else oldpython.find(python[len("python"):])
    if interpreter is None:
        pytest.skip(f"no {python} on this machine (the python3 run checks the same code)")
    interpreter = subprocess.run([interpreter, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True,
                                 check=True).stdout.strip()  # the interpreter itself, not a shim that needs PATH
    out = tmp_path / "collector.json.gz"
    done = subprocess.run([interpreter, str(_collector_script(tmp_path)), "--root", str(planted.root), "--output", str(out)],
                          capture_output=True, text=True, env={"PATH": "/nonexistent"}, check=False)
    assert done.returncode == 0, done.stderr
    assert stat_mode(out) == 0o600
    text = gzip.decompress(out.read_bytes()).decode("utf-8")
    assert leaks(text + done.stdout + done.stderr, planted.canaries) == []
    document = json.loads(text)
    assert "/var/log/foreman/production.log" in document["logs"]["files"]
    assert "/etc/redis.conf" in document["raw"]


def stat_mode(path: Path) -> int:
    import stat

    return stat.S_IMODE(path.stat().st_mode)


def test_apply_and_verify_never_show_or_journal_the_files_secrets(planted: Planted, tmp_path: Path) -> None:
    root = tmp_path / "host"
    shutil.copytree(planted.root, root, symlinks=True)
    hiera = root / "etc/foreman-installer/custom-hiera.yaml"
    original = hiera.read_bytes()
    seen = {}
    for label, extra in (("apply diff", ()), ("apply --write", ("--write",))):
        result = run_cli("apply", "--root", str(root), "--hosts", "12000", *extra)
        assert result.status == 0, (label, result.stderr)
        assert "custom-hiera.yaml (foretune)" in result.stdout  # a diff was shown: the canaries were in its context
        seen[label] = result.stdout + result.stderr
    prom = tmp_path / "foretune.prom"
    for fmt in ("text", "json"):
        result = run_cli("verify", "--root", str(root), "--format", fmt, "--prometheus", str(prom))
        assert result.status == 1, result.stderr  # pending: the installer has not run on the copy
        seen[f"verify {fmt}"] = result.stdout + result.stderr + prom.read_text(encoding="utf-8")
    [run] = os.listdir(root / "var/lib/foretune/runs")
    run_dir = root / "var/lib/foretune/runs" / run
    seen["journal"] = (run_dir / "journal.json").read_text(encoding="utf-8")
    seen["verified"] = (run_dir / "verified.json").read_text(encoding="utf-8")
    assert {label: leaks(text, planted.canaries) for label, text in seen.items() if leaks(text, planted.canaries)} == {}
    assert (run_dir / "backup/etc/foreman-installer/custom-hiera.yaml").read_bytes() == original  # the backup: 0600, as it was
    assert (run_dir / "backup/etc/foreman-installer/custom-hiera.yaml").stat().st_mode & 0o077 == 0
    kept = hiera.read_text(encoding="utf-8")
    assert all(c in kept for c, rel in planted.canaries.items() if rel == "etc/foreman-installer/custom-hiera.yaml")
