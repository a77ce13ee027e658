package dev.dht.operator.api.v1alpha1;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.Namespaced;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;
import java.util.List;

/**
 * Backups of a DhtCluster on a cron schedule: a DhtBackup per run (never two at once), and retention by count and
 * age after each run (docs/operations.md, "Back up and restore").
 *
 * <p>The CRD in {@code crds/} is generated from this class (never edit the YAML by hand).
 */
@Group(DhtCluster.GROUP)
@Version(DhtCluster.VERSION)
@Kind(DhtBackupSchedule.KIND)
@Plural("dhtbackupschedules")
@Singular("dhtbackupschedule")
@ShortNames("dhtbks")
@AdditionalPrinterColumn(
        name = "Cluster",
        jsonPath = ".spec.cluster",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The DhtCluster backed up")
@AdditionalPrinterColumn(
        name = "Schedule",
        jsonPath = ".spec.schedule",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Cron schedule (UTC)")
@AdditionalPrinterColumn(
        name = "Suspend",
        jsonPath = ".spec.suspend",
        type = AdditionalPrinterColumn.Type.BOOLEAN,
        getDescription = "No new runs while true")
@AdditionalPrinterColumn(
        name = "Last",
        jsonPath = ".status.lastBackup",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The DhtBackup last started")
@AdditionalPrinterColumn(
        name = "Active",
        jsonPath = ".status.active",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The DhtBackup running now")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
        value = "self.metadata.name.size() <= 40 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
        message = "metadata.name must be at most 40 lowercase letters, digits and '-', starting with a letter (it"
                + " prefixes the names of its DhtBackups)",
        reason = "FieldValueInvalid")
public class DhtBackupSchedule extends CustomResource<DhtBackupScheduleSpec, DhtBackupScheduleStatus>
        implements Namespaced {
    public static final String KIND = "DhtBackupSchedule";
    public static final List<String> PRINTER_COLUMNS =
            List.of("Cluster", "Schedule", "Suspend", "Last", "Active", "Age");

    @Override
    protected DhtBackupScheduleSpec initSpec() {
        return new DhtBackupScheduleSpec();
    }
}
