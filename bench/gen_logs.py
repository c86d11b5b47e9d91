"""Write realistic, large Foreman production.log and Apache access logs for the log benchmark.

production.log: Started / Processing / Parameters / Completed lines of interleaved requests (8-char
request ids, Rails 6 tails, log-normal durations per action, a few 500s, some multi-line errors);
every consumer create is a registration from one address (its script just before it, then the new
consumer's requests and its fact update 33 s later), beside check-ins of 5,000 registered hosts.
Apache access log: combined format with RHSM, dnf, puppet and hammer clients, UUID paths, mostly
200/304, and 503 bursts during registration storms.

    python3 bench/gen_logs.py --kind production --size-mb 1024 OUT
    python3 bench/gen_logs.py --kind access --size-mb 1024 OUT
"""

from __future__ import annotations

import argparse
import heapq
import random
import time
import uuid
from pathlib import Path

ACTIONS = (  # (controller#action, verb, path template, median ms)
    ("Katello::Api::Rhsm::CandlepinProxiesController#consumer_show", "GET", "/rhsm/consumers/{u}", 80),
    ("Katello::Api::Rhsm::CandlepinProxiesController#server_status", "GET", "/rhsm/status", 15),
    ("Katello::Api::Rhsm::CandlepinProxiesController#consumer_create", "POST", "/rhsm/consumers", 4000),
    ("Katello::Api::Rhsm::CandlepinProxiesController#facts", "PUT", "/rhsm/consumers/{u}", 900),
    ("Katello::Api::Rhsm::CandlepinProxiesController#upload_package_profile", "PUT", "/rhsm/consumers/{u}/packages", 600),
    ("Api::V2::RegistrationController#global", "GET", "/register", 120),
    ("Api::V2::HostsController#index", "GET", "/api/v2/hosts", 450),
    ("HostsController#externalNodes", "GET", "/node/{h}", 200),
    ("Api::V2::HostsController#facts", "POST", "/api/v2/hosts/facts", 700),
    ("Katello::Api::V2::RepositoriesController#index", "GET", "/katello/api/v2/repositories", 300),
    ("ForemanTasks::Api::TasksController#bulk_search", "POST", "/foreman_tasks/api/tasks/bulk_search", 40),
    ("NotificationRecipientsController#index", "GET", "/notification_recipients", 12),
)
WEIGHTS = (30, 25, 3, 6, 6, 3, 4, 8, 5, 3, 5, 2)
AGENTS = ('RHSM/1.0 (cmd=rhsmcertd-worker) subscription-manager/1.28.29-3.el8', 'libdnf (Red Hat Enterprise Linux 8.8; generic; Linux.x86_64)',
          'Puppet/7.24.0 Ruby/2.7.8-p225 (x86_64-linux)', 'rest-client/2.1.0 (linux x86_64) ruby/2.7.8p225', 'RHSM/1.0 (cmd=subscription-manager) subscription-manager/1.28.29-3.el8')


SCRIPT, CREATE, SHOW, FACTS, PACKAGES = (ACTIONS[5], ACTIONS[2], ACTIONS[0], ACTIONS[3], ACTIONS[4])


def production(out: Path, size: int, rng: random.Random) -> int:
    uuids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(5000)]  # registered hosts checking in
    t = 1_700_000_000
    written = lines = 0
    open_requests: list[tuple[bytes, str, float, int]] = []
    # a registration from one address: script, consumer create, then the new consumer's requests (the
    # fact update about 33 s after the create, as Katello does); (due second, order, action, address, uuid)
    due: list[tuple[int, int, tuple[str, str, str, int], str, str]] = []
    order = 0
    with out.open("wb", buffering=1 << 20) as handle:
        buf: list[bytes] = []
        while written < size:
            for _ in range(2000):
                now = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t))
                # about 4 to 24 requests in flight, as on a busy server (the level stays bounded)
                if len(open_requests) < 4 or (len(open_requests) < 24 and rng.random() < 0.5):
                    if due and due[0][0] <= t:
                        _, _, chosen, ip, consumer = heapq.heappop(due)
                    else:
                        chosen = rng.choices(ACTIONS, WEIGHTS)[0]
                        ip, consumer = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}", rng.choice(uuids)
                    action, verb, path, median = chosen
                    ms = rng.lognormvariate(0, 0.8) * median
                    if chosen is SCRIPT:
                        order += 1
                        heapq.heappush(due, (t + 1, order, CREATE, ip, ""))
                    elif chosen is CREATE:
                        consumer = str(uuid.UUID(int=rng.getrandbits(128)))
                        done = t + int(ms // 1000) + 1
                        for delay, step in ((0, SHOW), (33, FACTS), (34, PACKAGES)):
                            order += 1
                            heapq.heappush(due, (done + delay, order, step, ip, consumer))
                    rid = f"{rng.getrandbits(32):08x}"
                    url = path.format(u=consumer, h=f"host{rng.randrange(20000)}.example.com")
                    buf.append(f'{now} [I|app|{rid}] Started {verb} "{url}" for {ip} at {now.replace("T", " ")} +0000\n'.encode())
                    buf.append(f"{now} [I|app|{rid}] Processing by {action} as JSON\n".encode())
                    if verb != "GET":
                        buf.append(f'{now} [I|app|{rid}]   Parameters: {{"facts"=>"[FILTERED]", "id"=>"{rng.choice(uuids)}"}}\n'.encode())
                    open_requests.append((rid.encode(), action, ms, t))
                    lines += 2 + (verb != "GET")
                else:
                    rid_b, action, ms, _ = open_requests.pop(rng.randrange(len(open_requests)))
                    rid = rid_b.decode()
                    if rng.random() < 0.002:
                        buf.append(f"{now} [W|app|{rid}] Action failed\n {rid} | ActiveRecord::StatementInvalid: PG::QueryCanceled\n {rid} | /usr/share/foreman/app/models/host.rb:10:in `x'\n".encode())
                        buf.append(f"{now} [I|app|{rid}] Completed 500 Internal Server Error in {ms:.0f}ms (ActiveRecord: {ms / 3:.1f}ms | Allocations: {rng.randrange(100000)})\n".encode())
                        lines += 4
                    else:
                        buf.append(f"{now} [I|app|{rid}] Completed 200 OK in {ms:.0f}ms (Views: {ms / 10:.1f}ms | ActiveRecord: {ms / 4:.1f}ms | Allocations: {rng.randrange(100000)})\n".encode())
                        lines += 1
                if rng.random() < 0.3:
                    t += 1
            chunk = b"".join(buf)
            handle.write(chunk)
            written += len(chunk)
            buf.clear()
    return lines


def access(out: Path, size: int, rng: random.Random) -> int:
    uuids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(5000)]
    ips = [f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(256)}" for _ in range(3000)]
    paths = (("GET", "/rhsm/consumers/{u}", 200), ("GET", "/rhsm/status", 200), ("POST", "/rhsm/consumers?owner=Default_Organization", 200),
             ("GET", "/pulp/content/Default_Organization/Library/content/dist/rhel8/8/x86_64/baseos/os/Packages/b/bash-4.4.20-{n}.el8.x86_64.rpm", 200),
             ("GET", "/pulp/content/Default_Organization/Library/content/dist/rhel8/8/x86_64/appstream/os/repodata/repomd.xml", 304),
             ("PUT", "/rhsm/consumers/{u}/profiles", 200), ("GET", "/api/v2/hosts/{n}", 200), ("GET", "/node/host{n}.example.com?format=yml", 200))
    t = 1_700_000_000
    written = lines = 0
    storm = 0
    with out.open("wb", buffering=1 << 20) as handle:
        buf: list[bytes] = []
        while written < size:
            for _ in range(5000):
                stamp = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(t))
                verb, path, status = rng.choice(paths)
                if storm:
                    storm -= 1
                    if verb == "POST" or rng.random() < 0.6:
                        status = 503
                elif rng.random() < 0.00002:
                    storm = 20000
                elif rng.random() < 0.01:
                    status = 404
                url = path.format(u=rng.choice(uuids), n=rng.randrange(100000))
                user = rng.choice(uuids) if path.startswith("/rhsm") else "-"
                buf.append(f'{rng.choice(ips)} - {user} [{stamp}] "{verb} {url} HTTP/1.1" {status} {rng.randrange(100, 90000)} "-" "{rng.choice(AGENTS)}"\n'.encode())
                if rng.random() < 0.05:
                    t += 1
            lines += 5000
            chunk = b"".join(buf)
            handle.write(chunk)
            written += len(chunk)
            buf.clear()
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--kind", choices=("production", "access"), required=True)
    parser.add_argument("--size-mb", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    started = time.perf_counter()
    make = production if args.kind == "production" else access
    lines = make(args.out, args.size_mb * 1024 * 1024, random.Random(args.seed))
    print(f"wrote {args.out}: {args.out.stat().st_size / 1048576:.0f} MiB, {lines:,} lines in {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
