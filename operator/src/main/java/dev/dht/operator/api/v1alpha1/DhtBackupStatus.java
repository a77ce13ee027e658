package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;

/** Observed state of a backup, written only by the operator. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DhtBackupStatus extends FieldText {
    @JsonPropertyDescription("Pending, Running, Completed or Failed.")
    public BackupPhase phase;

    @JsonPropertyDescription("The backup's id in the store (spec.restoreFrom.backupId of a cluster made from it).")
    public String backupId;

    @JsonPropertyDescription("The start point T0, fixed before any member was asked: every write acknowledged before"
            + " it is in the backup; writes after it may be.")
    public String startPoint;

    @JsonPropertyDescription("When the backup completed or failed.")
    public String completionTime;

    @JsonPropertyDescription("Members asked, by ordinal: the topology when the start point was fixed.")
    public List<String> memberUrls;

    @JsonPropertyDescription("Each member's part.")
    public List<MemberBackupStatus> members = new ArrayList<>();

    @JsonPropertyDescription("Bytes of every member's checkpoint (each key counts once per copy).")
    public Long bytes;

    @JsonPropertyDescription("Bytes sent to the store by this backup (the rest was stored by earlier backups).")
    public Long bytesUploaded;

    @JsonPropertyDescription("What the backup is doing, or why it failed.")
    public String message;

    @JsonPropertyDescription("Complete (True once restorable) and Failed.")
    public List<Condition> conditions = new ArrayList<>();
}
