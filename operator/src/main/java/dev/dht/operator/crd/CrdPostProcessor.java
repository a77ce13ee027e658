package dev.dht.operator.crd;

import dev.dht.operator.api.v1alpha1.DhtBackup;
import dev.dht.operator.api.v1alpha1.DhtBackupSchedule;
import dev.dht.operator.api.v1alpha1.DhtBenchmark;
import dev.dht.operator.api.v1alpha1.DhtCluster;
import dev.dht.operator.api.v1alpha1.DhtUser;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceColumnDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Build step run right after the fabric8 CRD generator (Maven phase process-classes): puts the
 * printer columns in the order {@link DhtCluster#PRINTER_COLUMNS} (and {@link DhtBenchmark#PRINTER_COLUMNS}) gives,
 * because the generator
 * sorts them by JSONPath (which would make AGE the first column of {@code kubectl get dht}).
 * Nothing else changes; the result is what crds/ and the chart hold.
 */
public final class CrdPostProcessor {
    static final String HEADER = "# Generated from dev.dht.operator.api.v1alpha1 by the Fabric8 CRD generator"
            + " (printer columns in declaration order). Do not edit: run scripts/sync-crds.sh.\n";

    /** Declared printer-column order per kind. */
    static final Map<String, List<String>> COLUMNS = Map.of(
            DhtCluster.KIND,
            DhtCluster.PRINTER_COLUMNS,
            DhtBenchmark.KIND,
            DhtBenchmark.PRINTER_COLUMNS,
            DhtBackup.KIND,
            DhtBackup.PRINTER_COLUMNS,
            DhtBackupSchedule.KIND,
            DhtBackupSchedule.PRINTER_COLUMNS,
            DhtUser.KIND,
            DhtUser.PRINTER_COLUMNS);

    private CrdPostProcessor() {}

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: CrdPostProcessor <generated CRD yaml>...");
            System.exit(2);
        }
        for (String arg : args) {
            Path file = Path.of(arg);
            String processed = process(Files.readString(file, StandardCharsets.UTF_8));
            Files.writeString(file, processed, StandardCharsets.UTF_8);
        }
    }

    static String process(String yaml) {
        var crd = Serialization.unmarshal(yaml, CustomResourceDefinition.class);
        for (var version : crd.getSpec().getVersions()) {
            List<CustomResourceColumnDefinition> columns = version.getAdditionalPrinterColumns();
            if (columns != null) {
                String kind = crd.getSpec().getNames().getKind();
                columns.sort(Comparator.comparingInt(c -> position(kind, c.getName())));
            }
        }
        return HEADER + Serialization.asYaml(crd).replaceFirst("^---\n", "");
    }

    private static int position(String kind, String column) {
        var order = COLUMNS.get(kind);
        int i = order == null ? -1 : order.indexOf(column);
        if (i < 0) {
            throw new IllegalStateException(
                    "printer column " + column + " is missing from " + kind + ".PRINTER_COLUMNS");
        }
        return i;
    }
}
