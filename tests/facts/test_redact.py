"""Redaction by key name and by position; linear time on hostile text."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from foretune.host import redact
from foretune.host.redact import REDACTED, is_secret_name, redact_data, redact_line, redact_text


@pytest.mark.parametrize(("text", "expected"), [
    # key=value, key: value, key value
    ("requirepass foobared2\n", "requirepass [redacted]\n"),
    ('masterauth "a b c"\n', 'masterauth "[redacted]"\n'),
    ("export PGPASSWORD=hunter22\n", "export PGPASSWORD=[redacted]\n"),
    ("  :password: 'changeme'\n", "  :password: '[redacted]'\n"),
    ("- db_password: x1\n  pool: 5\n", "- db_password: [redacted]\n  pool: 5\n"),
    # Java options and XML attributes
    ('JAVA_OPTS="-Xmx4g -Djavax.net.ssl.trustStorePassword=abc -Dx=1"\n',
     'JAVA_OPTS="-Xmx4g -Djavax.net.ssl.trustStorePassword=[redacted] -Dx=1"\n'),
    ("keyStorePassword=abc123\n", "keyStorePassword=[redacted]\n"),
    ('<Connector keystorePass="s1" truststorePassword=\'s2\' port="1"/>',
     '<Connector keystorePass="[redacted]" truststorePassword=\'[redacted]\' port="1"/>'),
    ("<password>s3</password>", "<password>[redacted]</password>"),
    # connection strings and URLs
    ("primary_conninfo = 'host=db user=r password=pw1 port=5432'", "primary_conninfo = 'host=db user=r password=[redacted] port=5432'"),
    ("conninfo = 'password=''pw2'' host=db'", "conninfo = 'password=''[redacted]'' host=db'"),
    ("url: redis://:pw3@localhost:6379/0", "url: redis://:[redacted]@localhost:6379/0"),
    ("DATABASE_URL=postgres://u:p@ss@db/foreman", "DATABASE_URL=postgres://u:[redacted]@db/foreman"),
    ("https://github.com/theforeman/foreman", "https://github.com/theforeman/foreman"),
    # systemd Environment=
    ("Environment=A=1 DJANGO_SECRET_KEY=k1 API_TOKEN=t1 DB_PASS=p1 SSH_KEYFILE=/x PASSENGER_MAX=4",
     "Environment=A=1 DJANGO_SECRET_KEY=[redacted] API_TOKEN=[redacted] DB_PASS=[redacted] SSH_KEYFILE=[redacted] PASSENGER_MAX=4"),
    ('Environment="MY_SECRET=a b" "LANG=C"', 'Environment="MY_SECRET=[redacted]" "LANG=C"'),
    # JSON, doubled CSV quotes
    ('{"token": "t2", "workers": 4}', '{"token": "[redacted]", "workers": 4}'),
    ('1,"{""password"":""p2""}",x', '1,"{""password"":""[redacted]""}",x'),
    # not secrets
    ("ProxyPass /pulp http://localhost:24817/pulp\nPassengerMaxPoolSize 30\nKeepAlive On\nMaxKeepAliveRequests 100\n",
     "ProxyPass /pulp http://localhost:24817/pulp\nPassengerMaxPoolSize 30\nKeepAlive On\nMaxKeepAliveRequests 100\n"),
    ("password: true\ntoken: ''\nsecret: [redacted]\n", "password: true\ntoken: ''\nsecret: [redacted]\n"),
    # secrets placed by protocol words: HTTP credentials and cookies (production.log, candlepin.log, httpd)
    ("  Authorization: Bearer eyJhbGciOi.x1\n", "  Authorization: Bearer [redacted]\n"),
    ("Authorization: Basic dXNlcjpwdw==\n", "Authorization: Basic [redacted]\n"),
    ('RequestHeader set Authorization "Basic dXNlcjpwdw=="\n', 'RequestHeader set Authorization "Basic [redacted]"\n'),
    ("headers: {authorization=Bearer t0k3n, accept=json}", "headers: {authorization=Bearer [redacted], accept=json}"),
    ('{"HTTP_AUTHORIZATION"=>"Bearer abc"}', '{"HTTP_AUTHORIZATION"=>"Bearer [redacted]"}'),
    ("GET /api sent with Bearer eyJhbGciOiJSUzI1NiJ9abc", "GET /api sent with Bearer [redacted]"),
    ("Cookie: locale=en; _session_id=s3ss10n\n", "Cookie: locale=[redacted]; _session_id=[redacted]\n"),
    ("Set-Cookie: _session_id=s3ss; path=/; HttpOnly", "Set-Cookie: _session_id=[redacted]; path=[redacted]; HttpOnly"),
    # Ruby hashes (Rails parameters)
    ('  Parameters: {"login"=>"admin", "password"=>"rb1"}', '  Parameters: {"login"=>"admin", "password"=>"[redacted]"}'),
    ("{:password=>'rb2', :user=>'x'}", "{:password=>'[redacted]', :user=>'x'}"),
    # SQL, sshpass, Redis ACL rules
    ("LOG:  statement: ALTER USER foreman WITH PASSWORD 'sq1';", "LOG:  statement: ALTER USER foreman WITH PASSWORD '[redacted]';"),
    ("CREATE ROLE r LOGIN ENCRYPTED PASSWORD 'it''s';", "CREATE ROLE r LOGIN ENCRYPTED PASSWORD '[redacted]';"),
    ("sshd[1]: sshpass -p 'pw 1' ssh root@h", "sshd[1]: sshpass -p '[redacted]' ssh root@h"),
    ("sshpass -v -pS3cr ssh h", "sshpass -v -p[redacted] ssh h"),
    ("user default on >pw1 >pw2 ~* &* +@all\n", "user default on >[redacted] >[redacted] ~* &* +@all\n"),
    ("user w on #5e884898da28 !abc ~* -@all\n", "user w on #[redacted] ![redacted] ~* -@all\n"),
    ('1) "user default on #5e88 ~* &* +@all"', '1) "user default on #[redacted] ~* &* +@all"'),
    ("ACL SETUSER alice on >p4ss ~cached:*", "ACL SETUSER alice on >[redacted] ~cached:*"),
    # command lines: options named secret, known commands' password options, shell prefix assignments
    ("satellite-installer --foreman-initial-admin-password=hunter2x --tuning large",
     "satellite-installer --foreman-initial-admin-password=[redacted] --tuning large"),
    ("hammer --password ZQ79hammerlong host list", "hammer --password [redacted] host list"),
    ("--foreman-proxy-oauth-consumer-secret ZQ70oauth --foreman-proxy-port 9090",
     "--foreman-proxy-oauth-consumer-secret [redacted] --foreman-proxy-port 9090"),
    ("--password-file /etc/x --keep-going --key-file /etc/k", "--password-file /etc/x --keep-going --key-file /etc/k"),
    ("curl -s -u admin:ZQ12curl https://sat/api", "curl -s -u admin:[redacted] https://sat/api"),
    ("curl --user admin:ZQ12curl2 https://sat/api", "curl --user admin:[redacted] https://sat/api"),
    ("hammer -u admin -p ZQ71hammer host list", "hammer -u admin -p [redacted] host list"),
    ("redis-cli -a ZQ73redis info", "redis-cli -a [redacted] info"),
    ("/usr/bin/python3 -c x --password=ZQ90live -u admin:ZQ91live", "/usr/bin/python3 -c x --password=[redacted] -u admin:[redacted]"),
    ("wget --user=admin:ZQ92w x; docker run -u 1000:1000 x", "wget --user=admin:[redacted] x; docker run -u 1000:1000 x"),
    ("mysql -pZQ74my db; mysql -p db2", "mysql -p[redacted] db; mysql -p db2"),
    ("SSHPASS=ZQ13sshenv sshpass -e ssh root@client", "SSHPASS=[redacted] sshpass -e ssh root@client"),
    ("cron[1]: PGPASSWORD=x1 psql -U foreman", "cron[1]: PGPASSWORD=[redacted] psql -U foreman"),
    ("PGPASSWORD=x1 psql -U foreman", "PGPASSWORD=[redacted] psql -U foreman"),
    ("sudo: root : TTY=pts/0 ; PWD=/root ; USER=root ; COMMAND=/bin/ls",
     "sudo: root : TTY=pts/0 ; PWD=/root ; USER=root ; COMMAND=/bin/ls"),
    # SQL escape strings and dollar quoting
    ("ALTER ROLE candlepin ENCRYPTED PASSWORD E'ZQ25estr';", "ALTER ROLE candlepin ENCRYPTED PASSWORD [redacted];"),
    ("CREATE USER pulp PASSWORD $$ZQ26dollar$$;", "CREATE USER pulp PASSWORD [redacted];"),
    ("CREATE USER pulp PASSWORD $q$ZQ27tag$q$;", "CREATE USER pulp PASSWORD [redacted];"),
    # headers named secret, tokens as a URL's whole userinfo, OAuth signatures
    ("RequestHeader set X-Api-Key ZQ80xapikey", "RequestHeader set X-Api-Key [redacted]"),
    ('Header always set X-Auth-Token "ZQ81tok"', 'Header always set X-Auth-Token "[redacted]"'),
    ('Started GET "https://ZQ10ghptokenuser@git.example.com/x.git" for 10.0.0.1',
     'Started GET "https://[redacted]@git.example.com/x.git" for 10.0.0.1'),
    ("ssh://git@github.com/x postgres://foreman@localhost/foreman", "ssh://git@github.com/x postgres://foreman@localhost/foreman"),
    ('oauth_consumer_key="katello", oauth_signature="ZQ68oauthsig"', 'oauth_consumer_key="[redacted]", oauth_signature="[redacted]"'),
    # PEM private keys, on their lines or in one escaped string
    ("a::ssl_key_content: |\n  -----BEGIN RSA PRIVATE KEY-----\n  MIIEZQ1\n  MIIEZQ2\n  -----END RSA PRIVATE KEY-----\nb: 1\n",
     "a::ssl_key_content: |\n  -----BEGIN RSA PRIVATE KEY-----\n  [redacted]\n  [redacted]\n  -----END RSA PRIVATE KEY-----\nb: 1\n"),
    ('"k": "-----BEGIN PRIVATE KEY-----\\nMIIEZQ3\\n-----END PRIVATE KEY-----\\n"',
     '"k": "-----BEGIN PRIVATE KEY-----[redacted]-----END PRIVATE KEY-----\\n"'),
    ("-----BEGIN CERTIFICATE-----\nMIIcert\n-----END CERTIFICATE-----\n", "-----BEGIN CERTIFICATE-----\nMIIcert\n-----END CERTIFICATE-----\n"),
    # not secrets
    ("Basic authentication configured; user admin logged in", "Basic authentication configured; user admin logged in"),
])
def test_forms(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_yaml_positions() -> None:
    text = ("a:\n  password:\n    nextline1\n  pool: 5\n"
            "secret: |\n  line1\n\n  line2\nb: 1\n"
            "tokens:\n- t1\n- t2\nc: 2\n"
            "credentials:\n  user: u\n  list:\n    - x\nd: 3\n"
            "key: &k anchored1\ne: *k\n"
            "passphrase: \"open\n  still\"\nf: 4\n"
            "pw: plain\n  continued\ng: 5\n")
    assert redact_text(text) == ("a:\n  password:\n    [redacted]\n  pool: 5\n"
                                 "secret: |\n  [redacted]\n\n  [redacted]\nb: 1\n"
                                 "tokens:\n- [redacted]\n- [redacted]\nc: 2\n"
                                 "credentials:\n  user: [redacted]\n  list:\n    - [redacted]\nd: 3\n"
                                 "key: &k [redacted]\ne: *k\n"
                                 "passphrase: \"[redacted]\n  [redacted]\"\nf: 4\n"
                                 "pw: [redacted]\n  [redacted]\ng: 5\n")


def test_a_value_found_secret_is_masked_elsewhere_in_the_text() -> None:
    assert redact_text("db_password: Sup3rSecret\nlog: connected with Sup3rSecret\n") == (
        "db_password: [redacted]\nlog: connected with [redacted]\n")


def test_data_lists_maps_and_aliases_under_secret_keys() -> None:
    value = {"api_tokens": ["t1", "t2"], "credentials": {"user": "u1", "pw": "p1"}, "label": "Al1asedValue",
             "oauth_consumer_secret": "Al1asedValue", "opts": "-Xmx1g -Dx.keyStorePassword=ks1", "enabled": True, "pool": 5}
    assert redact_data(value) == {
        "api_tokens": [REDACTED, REDACTED], "credentials": {"user": REDACTED, "pw": REDACTED}, "label": REDACTED,
        "oauth_consumer_secret": REDACTED, "opts": "-Xmx1g -Dx.keyStorePassword=[redacted]", "enabled": True, "pool": 5}


def test_secret_names() -> None:
    secret = ("password", "db_password", "foreman::db_password", "keystorePass", "trustStorePassword", "requirepass",
              "masterauth", "SECRET_KEY", "oauth_consumer_key", "api_key", "PGPASSWORD", "ssh_identity_key_passphrase",
              "bind_pw", "basic_auth", "tcp_fastopen_key")
    plain = ("PassengerMaxPoolSize", "ProxyPassReverse", "KeepAlive", "db_pool", "keyfile", "max_keys", "author",
             "passenger_min_instances", "AuthType", "password_encryption", "password_file", "token_timeout", "SSLCertificateKeyFile")
    assert [n for n in secret if not is_secret_name(n)] == []
    assert [n for n in plain if is_secret_name(n)] == []


HOSTILE = {
    "one word": lambda n: "password" * (n // 8),
    "pairs": lambda n: "password=x " * (n // 11),
    "no hint": lambda n: "a" * n,
    "colons": lambda n: "a:" * (n // 2),
    "url without @": lambda n: "redis://" + ":" * n,
    "urls": lambda n: "a://b:" * (n // 6),
    "quotes": lambda n: '"' * n,
    "open quote": lambda n: 'password="' + "\\" * n,
    "environment": lambda n: "Environment=" + "SECRET_KEY=" * (n // 11),
    "elements": lambda n: "<password>" * (n // 10),
    "anchors": lambda n: "password: " + "&a " * (n // 3),
    "dashes": lambda n: "- " * (n // 2) + "password: x",
    "authorization": lambda n: "Authorization:" + " " * n,
    "authorizations": lambda n: "authorization " * (n // 14),
    "bearer": lambda n: "Bearer " * (n // 7),
    "cookie": lambda n: "Cookie: " + "a" * n,
    "cookie pairs": lambda n: "Cookie: " + "a=" * (n // 2),
    "sql": lambda n: "password '" + "x" * n,
    "sshpass": lambda n: "sshpass " + "-v " * (n // 3),
    "acl": lambda n: "user " + " " * n + "x",
    "acl rules": lambda n: "user default on " + ">x " * (n // 3),
    "ruby hash": lambda n: '"password"=>' * (n // 12),
    "options": lambda n: "--password " * (n // 11),
    "user options": lambda n: "-u " + "a" * n,
    "user options repeated": lambda n: "-u a:" * (n // 5),
    "option names": lambda n: "--" + "a" * n,
    "commands": lambda n: "curl " * (n // 5),
    "short options": lambda n: "hammer " + "-p " * (n // 3),
    "dollar quotes": lambda n: "password $" + "a" * n,
    "headers": lambda n: "RequestHeader set " * (n // 18),
    "url tokens": lambda n: "https://" * (n // 8),
    "pem": lambda n: "-----BEGIN " * (n // 11) + "PRIVATE KEY-----",
}


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_ten_megabyte_line_costs_under_a_second(shape: str) -> None:
    line = HOSTILE[shape](10 * 1024 * 1024)
    start = time.process_time()
    out = redact_text(line)
    assert time.process_time() - start < 1.0
    assert "password=x" not in out[:100] or shape != "pairs"


@pytest.mark.parametrize("shape", sorted(HOSTILE))
def test_patterns_are_linear_without_the_long_line_cap(shape: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap aside, a 2 MB line is still cheap: no pattern backtracks quadratically (that would take hours)."""
    monkeypatch.setattr(redact, "LONG_LINE", 1 << 40)
    line = HOSTILE[shape](2 * 1024 * 1024)
    start = time.process_time()
    redact_line(line)
    assert time.process_time() - start < 5.0


def test_long_line_that_may_hold_a_secret_is_masked_whole() -> None:
    line = "x" * 70000 + " password=p"
    assert redact_text(f"a: 1\n{line}\nb: 2\n") == "a: 1\n[redacted: line of 70011 characters]\nb: 2\n"


def test_live_command_lines_are_redacted_in_locations(tmp_path: object) -> None:
    import os

    from foretune.host.sources.live import LiveHost

    host = LiveHost({"PATH": os.environ.get("PATH", "")})
    raw = host.run(["echo", "redis://:Hx7LiveUrl@localhost:6379"])
    assert raw is not None
    assert raw.location == "echo redis://:[redacted]@localhost:6379"
    assert list(host.log) == [raw.location]


ALPHABET = "pasword:= \n\t-\"'\\|>&*#@/.,key_TOKENsecret[]{}<>É\r"


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=300))
def test_any_text_keeps_its_lines_and_redacting_twice_changes_nothing(text: str) -> None:
    once = redact_text(text)
    assert once.count("\n") == text.count("\n")
    assert redact_text(once) == once


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(ALPHABET, max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(ALPHABET, max_size=12), inner, max_size=4),
                    max_leaves=20))
def test_any_data_keeps_its_shape(value: object) -> None:
    def same_shape(before: object, after: object) -> bool:
        if isinstance(before, dict):  # every entry kept in order; a key changes only where a secret in it is masked
            return isinstance(after, dict) and len(after) == len(before) and all(
                (a == b or REDACTED in str(a)) and same_shape(before[b], after[a]) for b, a in zip(before, after))
        if isinstance(before, list):
            return isinstance(after, list) and len(after) == len(before) and all(map(same_shape, before, after))
        return after == REDACTED or type(after) is type(before)

    assert same_shape(value, redact_data(value))


def test_keys_masked_alike_keep_both_entries() -> None:
    # "pw::" reads as the line "pw: :" and "pw:x" as "pw: x": both keys are masked to "pw:[redacted]"; neither entry
    # may replace the other (nothing is lost), and neither key keeps what followed "pw:"
    assert redact_data({"pw::": 1, "pw:x": 2, "pool": 5}) == {"pw:[redacted]": 1, "pw:[redacted] (2)": 2, "pool": 5}
