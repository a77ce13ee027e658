package dev.dht.operator;

import dev.dht.operator.backup.reconciler.DhtBackupReconciler;
import dev.dht.operator.backup.reconciler.DhtBackupScheduleReconciler;
import dev.dht.operator.benchmark.reconciler.DhtBenchmarkReconciler;
import dev.dht.operator.nodeadmin.HttpMemberAdmin;
import dev.dht.operator.nodeadmin.JdkMemberTlsProbe;
import dev.dht.operator.nodeadmin.MemberAddresses;
import dev.dht.operator.reconciler.DhtClusterReconciler;
import dev.dht.operator.reconciler.WriteMetrics;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.RuntimeInfo;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;

/** The operator process's core: one JOSDK Operator running the DhtCluster, DhtBenchmark, DhtBackup and DhtBackupSchedule reconcilers. */
public final class DhtOperator implements AutoCloseable {
    public static final String LEASE_NAME = "dht-operator";
    private final Operator operator;
    private final WriteMetrics writes;

    private DhtOperator(Operator operator, WriteMetrics writes) {
        this.operator = operator;
        this.writes = writes;
    }

    public static DhtOperator create(KubernetesClient client, OperatorSettings settings, MeterRegistry registry) {
        return create(client, settings, registry, true);
    }

    /**
     * @param exitOnLostLease end the process when leadership is lost (production: a clean restart is
     *     safer than a second reconciler), or only stop reconciling (tests running in one JVM)
     */
    public static DhtOperator create(
            KubernetesClient client, OperatorSettings settings, MeterRegistry registry, boolean exitOnLostLease) {
        var operator = new Operator(o -> {
            o.withKubernetesClient(client)
                    .withCloseClientOnStop(false)
                    .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry))
                    // Missing RBAC shows up at start as a clear failure instead of a silently empty cache.
                    .withStopOnInformerErrorDuringStartup(true)
                    .withCacheSyncTimeout(Duration.ofMinutes(2));
            settings.leaseNamespace()
                    .ifPresent(ns -> o.withLeaderElectionConfiguration(new LeaderElectionConfiguration(
                            LEASE_NAME,
                            ns,
                            LeaderElectionConfiguration.LEASE_DURATION_DEFAULT_VALUE,
                            LeaderElectionConfiguration.RENEW_DEADLINE_DEFAULT_VALUE,
                            LeaderElectionConfiguration.RETRY_PERIOD_DEFAULT_VALUE,
                            null,
                            null,
                            exitOnLostLease)));
        });
        var writes = new WriteMetrics(registry);
        // The admin client port-forwards privileged calls (backups, restores) through the API server: see PortForwards.
        var reconciler = new DhtClusterReconciler(
                settings.platform(),
                Clock.systemUTC(),
                writes,
                new HttpMemberAdmin(client),
                MemberAddresses.overridden(settings.memberUrls()),
                DhtClusterReconciler.SCALING_POLL_INTERVAL,
                new JdkMemberTlsProbe(),
                null, // the member port: each member's address (or its override) at the member port offset
                null); // the client port: each member's address (or its override)
        operator.register(reconciler, o -> {
            if (settings.watchNamespaces().isEmpty()) {
                o.watchingAllNamespaces();
            } else {
                o.settingNamespaces(settings.watchNamespaces());
            }
        });
        operator.register(new DhtBenchmarkReconciler(settings.platform(), Clock.systemUTC(), writes), o -> {
            if (settings.watchNamespaces().isEmpty()) o.watchingAllNamespaces();
            else o.settingNamespaces(settings.watchNamespaces());
        });
        var members = MemberAddresses.overridden(settings.memberUrls());
        operator.register(
                new DhtBackupReconciler(
                        Clock.systemUTC(), writes, new HttpMemberAdmin(client), members, Duration.ofSeconds(2)),
                o -> {
                    if (settings.watchNamespaces().isEmpty()) o.watchingAllNamespaces();
                    else o.settingNamespaces(settings.watchNamespaces());
                });
        operator.register(
                new DhtBackupScheduleReconciler(Clock.systemUTC(), writes, new HttpMemberAdmin(client), members), o -> {
                    if (settings.watchNamespaces().isEmpty()) o.watchingAllNamespaces();
                    else o.settingNamespaces(settings.watchNamespaces());
                });
        return new DhtOperator(operator, writes);
    }

    public void start() {
        operator.start();
    }

    public RuntimeInfo runtimeInfo() {
        return operator.getRuntimeInfo();
    }

    public WriteMetrics writes() {
        return writes;
    }

    @Override
    public void close() {
        operator.stop();
    }
}
