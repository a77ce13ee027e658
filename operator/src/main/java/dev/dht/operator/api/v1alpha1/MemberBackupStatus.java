package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** One member's part of a backup, as the member last reported it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class MemberBackupStatus extends FieldText {
    @JsonPropertyDescription("The member's pod.")
    public String name;

    @JsonPropertyDescription("checkpointing, uploading, done, failed, or unknown (did not answer).")
    public String phase;

    @JsonPropertyDescription("Files of its checkpoint stored so far (uploaded, or already in the store).")
    public Long filesDone;

    public Long filesTotal;

    @JsonPropertyDescription("Bytes of its checkpoint stored so far.")
    public Long bytesDone;

    public Long bytesTotal;

    @JsonPropertyDescription("Bytes it sent to the store (files the store already held are not sent again).")
    public Long bytesUploaded;

    @JsonPropertyDescription("Times the operator asked it again after a failure.")
    public Integer retries;

    @JsonPropertyDescription("Why it failed or waits.")
    public String message;
}
