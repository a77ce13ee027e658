package dev.dht.node.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ReplicasTest {

    @ParameterizedTest(name = "cluster of {0} defaults to {1}/{2}")
    @CsvSource({"1, 1, 1", "2, 2, 2", "3, 2, 3", "4, 3, 4", "5, 3, 5"})
    void defaultIsQuorumOfTheCluster(int clusterSize, int ack, int from) throws Exception {
        assertThat(Replicas.parse(null, clusterSize, 0)).isEqualTo(new Replicas(ack, from, true));
    }

    @Test
    void replicationFactorSetsTheDefaultFrom() throws Exception {
        assertThat(Replicas.parse(null, 5, 3)).isEqualTo(new Replicas(2, 3, true));
        assertThat(Replicas.parse(null, 2, 3)).as("capped by the cluster").isEqualTo(new Replicas(2, 2, true));
    }

    @ParameterizedTest
    @CsvSource({"1/1, 1, 1, 1", "1/3, 3, 1, 3", "2/3, 3, 2, 3", "3/3, 3, 3, 3", "2/2, 5, 2, 2"})
    void validValues(String param, int cluster, int ack, int from) throws Exception {
        assertThat(Replicas.parse(param, cluster, 0)).isEqualTo(new Replicas(ack, from));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0/1", "2/1", "1/2", "0/0", "-1/1", "abc", "1", "1/", "/1", "/", "1/1/1", "a/b", ""})
    void invalidOnASingleNode(String param) {
        assertThatThrownBy(() -> Replicas.parse(param, 1, 0))
                .isInstanceOf(BadRequestException.class)
                .satisfies(e -> assertThat(((BadRequestException) e).status()).startsWith("400"));
    }

    @Test
    void messagesSayWhatIsWrong() {
        assertThatThrownBy(() -> Replicas.parse("0/2", 3, 0)).hasMessageContaining("at least 1");
        assertThatThrownBy(() -> Replicas.parse("3/2", 3, 0)).hasMessageContaining("larger than from");
        assertThatThrownBy(() -> Replicas.parse("4/4", 3, 0)).hasMessageContaining("larger than the cluster");
        assertThatThrownBy(() -> Replicas.parse("x", 3, 0)).hasMessageContaining("ack/from");
    }

    @Test
    void standalonePolicyValidatesAgainstOneNode() throws Exception {
        assertThat(ReplicasPolicy.standalone().parse(null)).isEqualTo(new Replicas(1, 1, true));
        assertThatThrownBy(() -> ReplicasPolicy.standalone().parse("2/3")).isInstanceOf(BadRequestException.class);
    }
}
