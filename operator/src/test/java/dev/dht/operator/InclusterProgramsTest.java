package dev.dht.operator;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.testing.Processes;
import dev.dht.operator.testing.Repo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Python programs the operator's pods run (scripts/incluster/: the members' profiler sidecar, the benchmark
 * Job's program) pass their own tests, so that make test covers them: real processes and HTTP on loopback, with
 * stand-ins for the node's profile endpoint and for the bench runner.
 */
class InclusterProgramsTest {
    @Test
    void theSidecarAndTheJobProgramPassTheirTests() {
        var result = Processes.run(
                List.of("python3", "-m", "unittest", "discover", "-s", "tests", "-t", "."),
                Map.of("PYTHONDONTWRITEBYTECODE", "1"),
                Repo.path("scripts/incluster"));
        assertThat(result.exitCode())
                .as("python3 -m unittest in scripts/incluster:\n" + result.stderr())
                .isZero();
        assertThat(result.stderr()).containsPattern("Ran 1\\d tests").contains("\nOK");
    }
}
