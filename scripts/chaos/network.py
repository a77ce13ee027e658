"""The run's own network: one Linux bridge, and per node a network namespace joined to it by a veth pair, so each
node has its own address and the harness can drop its packets for real.

    root namespace: bridge <id>br 10.250.S.1/24  (the clients talk to the nodes from here; never partitioned)
    namespace <id>n<i>: eth0 10.250.S.(10+i)/24, lo; an nftables table `chaos` with one input chain

A partition is a set of directed pairs (src, dst): dst's input chain drops every packet from src's address, with a
counter, so the report can show that packets were really dropped. A two-way cut is both pairs. Nothing else on the
machine is touched: the rules live in the run's namespaces and go away with them.
"""
from __future__ import annotations

import hashlib
import ipaddress
import json
import random
import subprocess
import sys
from dataclasses import dataclass

from .resources import Manifest

SUPERNET = ipaddress.ip_network("10.250.0.0/16")
PORT = 8080


def sh(*cmd: str, input: str | None = None) -> str:
    """Runs a command; raises with its stderr when it fails."""
    p = subprocess.run(list(cmd), input=input, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()}")
    return p.stdout


def _used_networks() -> list[ipaddress.IPv4Network]:
    nets = []
    for line in sh("ip", "-4", "-o", "addr", "show").splitlines():
        parts = line.split()
        if "inet" in parts:
            nets.append(ipaddress.ip_interface(parts[parts.index("inet") + 1]).network)
    for line in sh("ip", "-4", "route", "show", "table", "all").splitlines():
        dest = line.split()[0]
        if dest[0].isdigit():
            nets.append(ipaddress.ip_network(dest if "/" in dest else dest + "/32", strict=False))
    return nets


@dataclass
class Member:
    index: int
    ns: str
    ip: str

    @property
    def url(self) -> str:
        return f"http://{self.ip}:{PORT}"


class Network:
    def __init__(self, run_id: str, size: int, manifest: Manifest, rng: random.Random):
        # interface names are at most 15 characters: a short hash of the run's id keeps them unique
        self.prefix = "dc" + hashlib.sha1(run_id.encode()).hexdigest()[:6]
        self.manifest = manifest
        used = _used_networks()
        candidates = [n for n in SUPERNET.subnets(new_prefix=24) if not any(n.overlaps(u) for u in used)]
        if not candidates:
            raise RuntimeError(f"no free /24 left in {SUPERNET}")
        self.subnet = rng.choice(candidates)
        hosts = list(self.subnet.hosts())
        self.host_ip = str(hosts[0])
        self.bridge = f"{self.prefix}br"
        self.members = [Member(i, f"{self.prefix}n{i}", str(hosts[9 + i])) for i in range(size)]
        self._drops: set[tuple[int, int]] = set()
        self.dropped_total = 0  # packets dropped by every rule so far

    def create(self) -> None:
        plen = self.subnet.prefixlen
        self.manifest.add("link", name=self.bridge)
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", f"{self.host_ip}/{plen}", "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        for m in self.members:
            veth = f"{self.prefix}v{m.index}"
            self.manifest.add("netns", name=m.ns)
            sh("ip", "netns", "add", m.ns)
            self.manifest.add("link", name=veth)
            sh("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", m.ns)
            sh("ip", "link", "set", veth, "master", self.bridge)
            sh("ip", "link", "set", veth, "up")
            sh("ip", "-n", m.ns, "addr", "add", f"{m.ip}/{plen}", "dev", "eth0")
            sh("ip", "-n", m.ns, "link", "set", "eth0", "up")
            sh("ip", "-n", m.ns, "link", "set", "lo", "up")
            self._nft(m, "add table inet chaos\n"
                         "add chain inet chaos input { type filter hook input priority 0; policy accept; }\n")

    @staticmethod
    def _nft(m: Member, script: str) -> str:
        return sh("ip", "netns", "exec", m.ns, "nft", "-f", "-", input=script)

    def set_drops(self, drops: set[tuple[int, int]]) -> None:
        """Exactly these directed pairs are cut from now on: (src, dst) = dst drops what src sends."""
        if self._drops:
            self.dropped_total += self.dropped_packets()  # the flush below resets the counters
        self._drops = set(drops)
        for m in self.members:
            sources = sorted(self.members[s].ip for s, d in drops if d == m.index)
            script = "flush chain inet chaos input\n"
            if sources:
                script += f"add rule inet chaos input ip saddr {{ {', '.join(sources)} }} counter drop\n"
            self._nft(m, script)

    def heal(self) -> None:
        self.set_drops(set())

    @property
    def drops(self) -> set[tuple[int, int]]:
        return set(self._drops)

    def dropped_packets(self) -> int:
        """Packets the current rules dropped since they were set (over every namespace)."""
        total = 0
        for m in self.members:
            out = sh("ip", "netns", "exec", m.ns, "nft", "-j", "list", "chain", "inet", "chaos", "input")
            for item in json.loads(out).get("nftables", []):
                for expr in item.get("rule", {}).get("expr", []):
                    if "counter" in expr:
                        total += expr["counter"]["packets"]
        return total


def check_tools() -> None:
    for tool in ("ip", "nft", "mount", "umount"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            sys.exit(f"chaos: '{tool}' is needed (Debian: iproute2, nftables, mount)")
