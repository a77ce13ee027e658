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
 * One backup of a DhtCluster into its spec.backup.storage: the operator fixes a start point, asks every member to
 * take a checkpoint after it and upload it, and marks the backup complete once every member's part is stored
 * (docs/operations.md, "Back up and restore"). Deleting the object keeps what is stored (a schedule's retention
 * deletes stored backups).
 *
 * <p>The CRD in {@code crds/} is generated from this class (never edit the YAML by hand).
 */
@Group(DhtCluster.GROUP)
@Version(DhtCluster.VERSION)
@Kind(DhtBackup.KIND)
@Plural("dhtbackups")
@Singular("dhtbackup")
@ShortNames("dhtbk")
@AdditionalPrinterColumn(
        name = "Cluster",
        jsonPath = ".spec.cluster",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The DhtCluster backed up")
@AdditionalPrinterColumn(
        name = "Phase",
        jsonPath = ".status.phase",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "Pending, Running, Completed or Failed")
@AdditionalPrinterColumn(
        name = "Start-Point",
        jsonPath = ".status.startPoint",
        type = AdditionalPrinterColumn.Type.DATE,
        getDescription = "Every write acknowledged before it is in the backup")
@AdditionalPrinterColumn(
        name = "Bytes",
        jsonPath = ".status.bytes",
        type = AdditionalPrinterColumn.Type.INTEGER,
        getDescription = "Bytes of the members' checkpoints")
@AdditionalPrinterColumn(
        name = "Id",
        jsonPath = ".status.backupId",
        type = AdditionalPrinterColumn.Type.STRING,
        getDescription = "The backup's id in the store (spec.restoreFrom.backupId)")
@AdditionalPrinterColumn(
        name = "Age",
        jsonPath = ".metadata.creationTimestamp",
        type = AdditionalPrinterColumn.Type.DATE)
@ValidationRule(
        value = "self.metadata.name.size() <= 63 && self.metadata.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
        message =
                "metadata.name must be at most 63 lowercase letters, digits and '-' (it names the backup in the store)",
        reason = "FieldValueInvalid")
@ValidationRule(
        value = "has(self.spec) && has(self.spec.cluster)",
        message = "spec.cluster is required: the name of the DhtCluster to back up",
        reason = "FieldValueRequired")
public class DhtBackup extends CustomResource<DhtBackupSpec, DhtBackupStatus> implements Namespaced {
    public static final String KIND = "DhtBackup";
    /** Order of the printer columns (the generator sorts them by path; the build restores this order). */
    public static final List<String> PRINTER_COLUMNS = List.of("Cluster", "Phase", "Start-Point", "Bytes", "Id", "Age");
    /** Label of backups a DhtBackupSchedule made: the schedule's name. */
    public static final String SCHEDULE_LABEL = "dht.dev/schedule";

    @Override
    protected DhtBackupSpec initSpec() {
        return new DhtBackupSpec();
    }
}
