package dev.dht.operator;

import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.security.Security;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point: {@code java -jar dht-operator.jar}. Talks to the cluster of the current kubeconfig
 * (or the in-cluster service account); settings come from DHT_OPERATOR_* variables (--help).
 */
public final class OperatorMain {
    private static final Logger log = LoggerFactory.getLogger(OperatorMain.class);

    private OperatorMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            boolean help = args[0].equals("--help") || args[0].equals("-h");
            (help ? System.out : System.err).println(usage());
            System.exit(help ? 0 : 2);
        }
        OperatorSettings settings;
        try {
            settings = OperatorSettings.fromEnv(System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("dht-operator: " + e.getMessage());
            System.exit(2);
            return;
        }
        limitDnsCaching();
        var registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmGcMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);

        var client = new KubernetesClientBuilder().build();
        var operator = DhtOperator.create(client, settings, registry);
        HealthServer health = settings.httpPort() == 0
                ? null
                : HealthServer.start(settings.httpPort(), () -> notReadyReason(operator), registry);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            log.info("stopping");
                            operator.close();
                            if (health != null) {
                                health.close();
                            }
                            client.close();
                        },
                        "shutdown"));
        log.info(
                "dht-operator {} starting: API server {}, namespaces {}, node image {}, leader election {}",
                OperatorSettings.VERSION,
                client.getMasterUrl(),
                settings.watchNamespaces().isEmpty() ? "all" : settings.watchNamespaces(),
                settings.defaultNodeImage(),
                settings.leaseNamespace()
                        .map(ns -> "lease " + ns + "/" + DhtOperator.LEASE_NAME)
                        .orElse("off"));
        operator.start();
        if (health != null) {
            log.info("health and metrics on :{} (/healthz /readyz /metrics)", health.port());
        }
    }

    /**
     * The operator reaches members by their DNS names, which point to a new pod IP each time a pod is replaced. With
     * the JVM's 30 s cache its admin calls go to the old address of a replaced member for up to 30 s, so the repair
     * poll meant to see the new pod's rebuild can fail and a short rebuild go unseen (make e2e, step 10 missed one).
     * Must run before the first lookup; a -Dsun.net.inetaddr.ttl option still wins. (The node does the same.)
     */
    static void limitDnsCaching() {
        if (System.getProperty("sun.net.inetaddr.ttl") == null) {
            Security.setProperty("networkaddress.cache.ttl", "1");
        }
        if (System.getProperty("sun.net.inetaddr.negative.ttl") == null) {
            Security.setProperty("networkaddress.cache.negative.ttl", "1");
        }
    }

    static String notReadyReason(DhtOperator operator) {
        var info = operator.runtimeInfo();
        if (!info.isStarted()) {
            return "operator not started";
        }
        if (!info.allEventSourcesAreHealthy()) {
            return "unhealthy event sources: "
                    + info.unhealthyEventSources().entrySet().stream()
                            .map(e -> e.getKey() + " " + e.getValue().keySet())
                            .collect(Collectors.joining("; "));
        }
        return "";
    }

    static String usage() {
        var out = new StringBuilder("usage: java -jar dht-operator.jar\n\n"
                + "Runs the dht operator against the cluster of the current kubeconfig (or in-cluster credentials).\n"
                + "Settings come from the environment:\n");
        OperatorSettings.VARIABLES.forEach((k, v) -> out.append(String.format("  %-32s %s%n", k, v)));
        return out.toString();
    }
}
