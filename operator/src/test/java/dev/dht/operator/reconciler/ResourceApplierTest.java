package dev.dht.operator.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dht.operator.model.Clusters;
import dev.dht.operator.model.Labels;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import org.junit.jupiter.api.Test;

class ResourceApplierTest {
    @Test
    void aLiveObjectWithTheDesiredStampIsUpToDateWhateverTheServerAddedToIt() {
        var desired = Clusters.desired(s -> {}).statefulSet();
        var live = desired.toBuilder()
                .editMetadata()
                .withResourceVersion("42")
                .withGeneration(3L)
                .endMetadata()
                .editSpec()
                .withRevisionHistoryLimit(10)
                .endSpec()
                .withNewStatus()
                .withReplicas(3)
                .endStatus()
                .build();
        assertThat(ResourceApplier.upToDate(live, desired)).isTrue();
    }

    @Test
    void aDifferentStampIsADifference() {
        var desired = Clusters.desired(s -> {}).statefulSet();
        var live = desired.toBuilder()
                .editMetadata()
                .addToAnnotations(Labels.DESIRED_HASH, "older")
                .endMetadata()
                .build();
        assertThat(ResourceApplier.upToDate(live, desired)).isFalse();
    }

    @Test
    void aStatefulSetScaledBehindTheOperatorsBackIsScaledBack() {
        StatefulSet desired = Clusters.desired(s -> {}).statefulSet();
        var live = desired.toBuilder().editSpec().withReplicas(1).endSpec().build();
        assertThat(ResourceApplier.upToDate(live, desired)).isFalse();
    }
}
