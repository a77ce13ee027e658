package dev.dht.operator.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.testing.Processes;
import dev.dht.operator.testing.Repo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * make e2e's checker and attacker (scripts/e2e/dhtcheck.py and dhtattack.py, which its Jobs run) pass their own
 * tests against the real node jar, so that make test covers what the e2e steps count: values of this run only,
 * failures by cause, acknowledgements per second, a member's metric sample; every attack refused by a node with
 * member TLS, each connection to its member port recorded, and a plaintext member port reported as answering.
 */
class DhtcheckIT {
    @Test
    void theE2eCheckerPassesItsTestsAgainstTheNodeJar() {
        var jar = Repo.path("node/target/dht-node.jar");
        assertThat(jar)
                .as("the node jar, built before the operator's tests (mvn verify from the root)")
                .exists();
        String java = ProcessHandle.current().info().command().orElse("java");
        var result = Processes.run(
                List.of("python3", "-m", "unittest", "discover", "-s", "tests", "-t", "."),
                Map.of("PYTHONDONTWRITEBYTECODE", "1", "DHT_NODE_JAR", jar.toString(), "JAVA", java),
                Repo.path("scripts/e2e"));
        assertThat(result.exitCode())
                .as("python3 -m unittest in scripts/e2e:\n" + result.stderr())
                .isZero();
        assertThat(result.stderr()).contains("Ran 10 tests").contains("\nOK");
    }
}
