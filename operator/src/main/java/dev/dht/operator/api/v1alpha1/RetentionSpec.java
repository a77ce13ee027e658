package dev.dht.operator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;

/** How many of a schedule's backups are kept, and for how long. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RetentionSpec {
    @Default("7")
    @Min(1)
    @Max(1000)
    @JsonPropertyDescription("Completed backups kept: older ones are deleted from the store after each run (their"
            + " manifests first, then every file no kept backup references).")
    public Integer last;

    @Pattern("^[0-9]+(s|m|h|d)$")
    @JsonPropertyDescription(
            "Completed backups older than this (30d, 12h) are deleted too; the newest completed one" + " always stays.")
    public String maxAge;
}
