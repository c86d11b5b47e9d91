"""`plan --explain` quotes the sentence that carries the number, from the guide of the release planned."""

from __future__ import annotations

from tests.conftest import run_cli

G62 = ["--product", "satellite", "--version", "6.2", "--hosts", "8000", "--cpus", "16", "--physical-cores", "8",
       "--ram", "48G", "--katello-agent-hosts", "6000"]
G69 = ["--product", "satellite", "--version", "6.9", "--hosts", "7000", "--cpus", "8", "--ram", "32G",
       "--katello-agent-hosts", "3000"]


def quotes(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("quote: ")]


def test_the_start_timeout_quotes_only_the_briefs_start_timeout_line() -> None:
    out = run_cli("plan", *G62, "--explain", "passenger.start_timeout").stdout
    # the 6.2 brief's per-application block is the one quote of g62-passenger that names PassengerStartTimeout
    assert [q.split('" (', 1)[0] for q in quotes(out)] == [
        'quote: "PassengerMinInstances 6 PassengerStartTimeout 500 PassengerMaxPreloaderIdleTime 0 PassengerMaxRequests 10000']
    assert "1.5 * " not in out and "PassengerMaxRequestQueueSize to the maximum expected burst" not in out


def test_shared_buffers_on_6_9_quotes_the_6_9_guides_range_sentence_only() -> None:
    out = run_cli("plan", *G69, "--explain", "postgresql.shared_buffers").stdout
    # the Satellite 6.9 Performance Tuning Guide, PostgreSQL Tuning: its own sentence, not the Foreman guide's
    sentence = ("An optimal value for this will vary between 2 GB to a maximum of 25% of your total system memory "
                "depending upon the frequency of the operations being conducted on Satellite.")
    assert quotes(out) and all(sentence in q for q in quotes(out))
    assert "conducted on Foreman" not in out
    assert "Setting this value to 8 MB" not in out and "2000" not in "".join(quotes(out))


def test_puppet_foreman_is_linked_at_the_tag_the_release_pins() -> None:
    # Satellite 6.13 = foreman-installer 3.5.0, whose Puppetfile.lock pins "theforeman-foreman (22.1.0)"; its
    # manifests/config.pp has the Puma formula ("$facts['processors']['count'] * 1.5,") as 18.2.0 had it
    out = run_cli("plan", "--product", "satellite", "--version", "6.13", "--hosts", "7000", "--cpus", "8", "--ram", "32G",
                  "--katello-agent-hosts", "0", "--explain", "puma.workers").stdout
    urls = {line.strip() for line in out.splitlines() if "github.com/theforeman/puppet-foreman" in line}
    assert "url: https://github.com/theforeman/puppet-foreman/blob/22.1.0/manifests/config.pp" in urls
    assert not any("/blob/18.2.0/" in url for url in urls)
    # the pool's threads + 4 is puppet-foreman 25.0.0's (foreman-installer 3.11), later than 3.5: linked where it is
    assert "url: https://github.com/theforeman/puppet-foreman/blob/25.0.0/manifests/config.pp" in urls


def test_the_installer_pool_of_6_14_is_linked_at_the_puppet_foreman_it_pins() -> None:
    # Satellite 6.14 = foreman-installer 3.7.0, whose Puppetfile.lock pins "theforeman-foreman (23.0.0)"; its
    # manifests/config.pp has "'db_pool'   => max($foreman::db_pool, $foreman::foreman_service_puma_threads_max),"
    out = run_cli("plan", "--product", "satellite", "--version", "6.14", "--hosts", "9000", "--cpus", "12", "--ram", "48G",
                  "--explain", "foreman.db_pool").stdout
    installer = out.split("installer: ", 1)[1].split("\n\n", 1)[0]
    assert "max(db_pool 5, threads_max 5)" in installer
    assert "url: https://github.com/theforeman/puppet-foreman/blob/23.0.0/manifests/config.pp" in installer
