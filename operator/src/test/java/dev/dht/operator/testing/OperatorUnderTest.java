package dev.dht.operator.testing;

import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtUser;
import dev.dht.operator.model.Platform;
import dev.dht.operator.nodeadmin.HttpMemberAdmin;
import dev.dht.operator.nodeadmin.JdkMemberTlsProbe;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.reconciler.DhtClusterReconciler;
import dev.dht.operator.reconciler.WriteMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.junit.LocallyRunOperatorExtension;
import java.time.Clock;
import java.time.Duration;

/**
 * The operator as the integration tests run it against {@link KubeApiServer}: the set-up every such test shares,
 * so that a new watch of the cluster reconciler is added here once, not in each test.
 */
public final class OperatorUnderTest {
    /** How often the cluster reconciler polls fake members while something runs (production: 2 s). */
    public static final Duration POLL_INTERVAL = Duration.ofMillis(250);

    private OperatorUnderTest() {}

    /**
     * A builder on {@code client} (which the test keeps: not closed on stop), namespaces not awaited on deletion,
     * and the DhtBackup and DhtUser CRDs applied: the cluster reconciler watches DhtBackups (a backup or restore holds
     * a scale) and DhtUsers (it issues their client certificates), so their CRDs must exist even in a test that runs
     * no backup reconciler. Add the reconcilers.
     */
    public static LocallyRunOperatorExtension.Builder builder(KubernetesClient client) {
        return LocallyRunOperatorExtension.builder()
                .withKubernetesClient(client)
                .withAdditionalCustomResourceDefinition(DhtBackup.class)
                .withAdditionalCustomResourceDefinition(DhtUser.class)
                .withConfigurationService(o -> o.withCloseClientOnStop(false))
                .waitForNamespaceDeletion(false);
    }

    /** The cluster reconciler reaching its members' admin API where {@code addresses} says (fake members). */
    public static DhtClusterReconciler clusterReconciler(
            Platform platform, WriteMetrics writes, MemberAddresses addresses) {
        return new DhtClusterReconciler(
                platform,
                Clock.systemUTC(),
                writes,
                new HttpMemberAdmin(),
                addresses,
                POLL_INTERVAL,
                new JdkMemberTlsProbe(),
                null,
                null);
    }
}
