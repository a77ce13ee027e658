package dev.dht.node.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RecordTest {

    @Test
    void valueRoundTripsThroughItsEncoding() {
        byte[] value = "hello".getBytes(StandardCharsets.UTF_8);
        Record r = Record.value(0x0123_4567_89AB_CDEFL, value);
        Record back = Record.decode(r.encoded().clone());
        assertThat(back.timestamp()).isEqualTo(0x0123_4567_89AB_CDEFL);
        assertThat(back.isTombstone()).isFalse();
        assertThat(back.value()).isEqualTo(value);
        assertThat(back.valueLength()).isEqualTo(5);
        assertThat(back.encoded()).hasSize(Record.HEADER_SIZE + 5);
        assertThat(back.encoded()[0]).isEqualTo(Record.VERSION);
        assertThat(back).isEqualTo(r);
    }

    @Test
    void emptyValueIsAValueNotATombstone() {
        Record r = Record.decode(Record.value(7, new byte[0]).encoded());
        assertThat(r.isTombstone()).isFalse();
        assertThat(r.valueLength()).isZero();
    }

    @Test
    void tombstoneCarriesOnlyItsTimestamp() {
        Record t = Record.decode(Record.tombstone(99).encoded());
        assertThat(t.isTombstone()).isTrue();
        assertThat(t.timestamp()).isEqualTo(99);
        assertThat(t.encoded()).hasSize(Record.HEADER_SIZE);
    }

    @Test
    void unknownVersionsAndTruncatedBytesAreRejected() {
        byte[] e = Record.value(1, new byte[] {1}).encoded().clone();
        e[0] = 9;
        assertThatThrownBy(() -> Record.decode(e))
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("version 9");
        assertThatThrownBy(() -> Record.decode(new byte[3])).isInstanceOf(CorruptRecordException.class);
        byte[] fatTombstone = new byte[Record.HEADER_SIZE + 1];
        fatTombstone[0] = Record.VERSION;
        fatTombstone[1] = 1;
        assertThatThrownBy(() -> Record.decode(fatTombstone)).isInstanceOf(CorruptRecordException.class);
    }

    @Test
    void lastWriteWinsOrder() {
        Record older = Record.value(10, new byte[] {9});
        Record newer = Record.value(11, new byte[] {1});
        assertThat(newer.supersedes(older)).isTrue();
        assertThat(older.supersedes(newer)).isFalse();
        assertThat(Record.tombstone(12).supersedes(newer)).isTrue();
        assertThat(Record.value(13, new byte[0]).supersedes(Record.tombstone(12)))
                .isTrue();
        // Ties: tombstone first, then larger value bytes; never both ways, never for equal records.
        assertThat(Record.tombstone(11).supersedes(newer)).isTrue();
        assertThat(newer.supersedes(Record.tombstone(11))).isFalse();
        assertThat(Record.value(11, new byte[] {2}).supersedes(newer)).isTrue();
        assertThat(newer.supersedes(Record.value(11, new byte[] {1}))).isFalse();
    }

    @Test
    void withTimestampKeepsTheContent() {
        Record r = Record.value(1, new byte[] {4, 5}).withTimestamp(2);
        assertThat(r.timestamp()).isEqualTo(2);
        assertThat(r.value()).containsExactly(4, 5);
        assertThat(Record.tombstone(1).withTimestamp(3).isTombstone()).isTrue();
    }
}
