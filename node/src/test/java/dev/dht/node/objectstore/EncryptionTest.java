package dev.dht.node.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.crypto.tink.InsecureSecretKeyAccess;
import com.google.crypto.tink.StreamingAead;
import com.google.crypto.tink.streamingaead.AesGcmHkdfStreamingKey;
import com.google.crypto.tink.streamingaead.PredefinedStreamingAeadParameters;
import com.google.crypto.tink.subtle.AesGcmHkdfStreaming;
import com.google.crypto.tink.util.SecretBytes;
import dev.dht.node.backup.MemberManifest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The backup encryption (docs/security.md, "Backups"): DHTENC02 is Tink's AES256_GCM_HKDF_1MB streaming AEAD after a
 * 16-byte header, checked here against Tink's own implementation both ways; an encoding saved with an upload gives
 * the same bytes again from any offset (a resumed multipart upload); tampering of any kind fails; and objects of the
 * previous format (DHTENC01, written by f09ee83: the fixture backup) still decrypt to the files they name.
 */
class EncryptionTest {
    static final Encryption KEY =
            new Encryption("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    static final int[] SIZES = {
        0,
        1,
        Encryption.FIRST_PLAIN - 1,
        Encryption.FIRST_PLAIN,
        Encryption.FIRST_PLAIN + 1,
        Encryption.FIRST_PLAIN + Encryption.PLAIN,
        3 * Encryption.SEGMENT + 5
    };

    static StreamingAead tink() throws Exception {
        AesGcmHkdfStreamingKey key = AesGcmHkdfStreamingKey.create(
                PredefinedStreamingAeadParameters.AES256_GCM_HKDF_1MB,
                SecretBytes.copyFrom(KEY.backupKey(), InsecureSecretKeyAccess.get()));
        return AesGcmHkdfStreaming.create(key);
    }

    static byte[] random(int size) {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        return data;
    }

    @Test
    void tinkDecryptsWhatTheNodeWrites() throws Exception {
        StreamingAead tink = tink();
        AesGcmHkdfStreaming sizes = new AesGcmHkdfStreaming(KEY.backupKey(), "HmacSha256", 32, Encryption.SEGMENT, 0);
        for (int size : SIZES) {
            byte[] data = random(size);
            byte[] stored = KEY.encode(new ByteArrayInputStream(data)).readAllBytes();
            assertThat((long) stored.length)
                    .as("size %d", size)
                    .isEqualTo(KEY.storedLength(size))
                    .isEqualTo(Encryption.HEADER + sizes.expectedCiphertextSize(size));
            byte[] header = Arrays.copyOf(stored, Encryption.HEADER);
            try (InputStream in = tink.newDecryptingStream(
                    new ByteArrayInputStream(stored, Encryption.HEADER, stored.length), header)) {
                assertThat(in.readAllBytes()).as("size %d", size).isEqualTo(data);
            }
        }
    }

    @Test
    void theNodeDecryptsWhatTinkWrites() throws Exception {
        StreamingAead tink = tink();
        byte[] header =
                Arrays.copyOf(KEY.encode(new ByteArrayInputStream(new byte[0])).readAllBytes(), Encryption.HEADER);
        for (int size : SIZES) {
            byte[] data = random(size);
            ByteArrayOutputStream stored = new ByteArrayOutputStream();
            stored.write(header);
            try (OutputStream out = tink.newEncryptingStream(stored, header)) {
                out.write(data);
            }
            assertThat(KEY.decode(new ByteArrayInputStream(stored.toByteArray()))
                            .readAllBytes())
                    .as("size %d", size)
                    .isEqualTo(data);
        }
    }

    @Test
    void aSavedEncodingGivesTheSameBytesFromAnyOffsetReadingOnlyWhatItNeeds() throws Exception {
        byte[] data = random(3 * Encryption.SEGMENT + 777);
        ObjectCodec.Encoder first = KEY.encoder();
        byte[] whole = first.open(source(data, new ArrayList<>()), 0).readAllBytes();
        ObjectCodec.Encoder again = KEY.encoder(first.saved());
        int s = Encryption.SEGMENT;
        for (long offset : new long[] {
            0, 5, 16, 17, 56, s - 1, s + 16, s + 17, 2L * s + 123, 3L * s + 16, whole.length - 1, whole.length
        }) {
            List<Long> asked = new ArrayList<>();
            byte[] rest = again.open(source(data, asked), offset).readAllBytes();
            assertThat(rest).as("from %d", offset).isEqualTo(Arrays.copyOfRange(whole, (int) offset, whole.length));
            long segment = Math.max(0, offset - Encryption.HEADER) / s;
            assertThat(asked)
                    .as("plain bytes read from %d", offset)
                    .containsExactly(segment == 0 ? 0L : Encryption.FIRST_PLAIN + (segment - 1) * Encryption.PLAIN);
        }
        assertThat(KEY.encoder().open(source(data, new ArrayList<>()), 0).readAllBytes())
                .as("a fresh encoding: another salt, other bytes")
                .isNotEqualTo(whole);
    }

    static ObjectCodec.PlainSource source(byte[] data, List<Long> asked) {
        return offset -> {
            asked.add(offset);
            return new ByteArrayInputStream(data, (int) offset, data.length - (int) offset);
        };
    }

    @Test
    void tamperingOfAnyKindFails() throws Exception {
        byte[] data = random(3 * Encryption.SEGMENT);
        byte[] stored = KEY.encode(new ByteArrayInputStream(data)).readAllBytes();
        int s = Encryption.SEGMENT;
        int h = Encryption.HEADER;
        byte[] flipped = stored.clone();
        flipped[h + s + 100] ^= 1;
        byte[] swapped = stored.clone();
        System.arraycopy(stored, h + 2 * s, swapped, h + s, s);
        System.arraycopy(stored, h + s, swapped, h + 2 * s, s);
        byte[] cutAtSegment = Arrays.copyOf(stored, h + 3 * s);
        byte[] extended = Arrays.copyOf(stored, stored.length + s);
        System.arraycopy(stored, h + s, extended, stored.length, s);
        byte[] otherSalt = stored.clone();
        otherSalt[h + 1] ^= 1;
        for (byte[] bad : List.of(flipped, swapped, cutAtSegment, extended, otherSalt)) {
            assertThatThrownBy(() -> KEY.decode(new ByteArrayInputStream(bad)).readAllBytes())
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("cannot decrypt");
        }
        Encryption other = new Encryption("another key, another key, 32 b!".getBytes(StandardCharsets.US_ASCII));
        assertThatThrownBy(() -> other.decode(new ByteArrayInputStream(stored)).readAllBytes())
                .hasMessageContaining("wrong encryption key");
        assertThatThrownBy(() -> KEY.decode(new ByteArrayInputStream(data)).readAllBytes())
                .hasMessageContaining("no DHTENC02 or DHTENC01 header");
    }

    @Test
    void objectsOfThePreviousFormatStillDecryptToTheFilesTheyName() throws Exception {
        Path fixture = fixture();
        Encryption key = Encryption.fromFile(fixture.resolve("encryption-key"));
        int files = 0;
        for (String member : List.of("0.json", "1.json")) {
            MemberManifest m = MemberManifest.fromJson(Files.readAllBytes(
                    fixture.resolve("encrypted/backups/old-release/members").resolve(member)));
            assertThat(m.encryption()).isEqualTo(key.keyId());
            for (MemberManifest.FileRef f : m.files()) {
                byte[] stored = Files.readAllBytes(fixture.resolve("encrypted").resolve(f.object()));
                assertThat(new String(stored, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("DHTENC01");
                assertThat(key.holds(f.size(), stored.length))
                        .as("%s is not uploaded again", f.name())
                        .isTrue();
                byte[] plain = key.decode(new ByteArrayInputStream(stored)).readAllBytes();
                assertThat((long) plain.length).isEqualTo(f.size());
                ObjectCodec.Digest digest = key.digest();
                digest.update(plain, 0, plain.length);
                assertThat("files/" + digest.finish()).as(f.name()).isEqualTo(f.object());
                byte[] cut = Arrays.copyOf(stored, stored.length - 1);
                assertThatThrownBy(
                                () -> key.decode(new ByteArrayInputStream(cut)).readAllBytes())
                        .hasMessageContaining("cannot decrypt");
                files++;
            }
        }
        assertThat(files).isGreaterThan(8);
    }

    /**
     * Below feature level 2 the node writes DHTENC01 (docs/upgrading.md): re-encrypted with the nonce base the
     * fixture's object has, every file of the backup f09ee83 wrote comes out byte for byte as f09ee83 stored it;
     * from any offset too (a resumed upload); and only an object in that format counts as holding the file.
     */
    @Test
    void belowTheFeatureLevelTheNodeWritesExactlyWhatThePreviousReleaseWrote() throws Exception {
        Path fixture = fixture();
        boolean[] newFormat = {false};
        Encryption key = Encryption.fromFile(fixture.resolve("encryption-key"), () -> newFormat[0]);
        ObjectCodec writing = key.writing();
        int files = 0;
        for (String member : List.of("0.json", "1.json")) {
            MemberManifest m = MemberManifest.fromJson(Files.readAllBytes(
                    fixture.resolve("encrypted/backups/old-release/members").resolve(member)));
            for (MemberManifest.FileRef f : m.files()) {
                byte[] stored = Files.readAllBytes(fixture.resolve("encrypted").resolve(f.object()));
                byte[] plain = key.decode(new ByteArrayInputStream(stored)).readAllBytes();
                ObjectCodec.Encoder encoder = key.encoder(Arrays.copyOfRange(stored, 16, 24));
                assertThat(encoder.open(source(plain, new ArrayList<>()), 0).readAllBytes())
                        .as(f.name())
                        .isEqualTo(stored);
                long offset = Math.min(stored.length, Encryption.V1_HEADER + Encryption.V1_CHUNK + Encryption.TAG + 3);
                assertThat(encoder.open(source(plain, new ArrayList<>()), offset)
                                .readAllBytes())
                        .as(f.name())
                        .isEqualTo(Arrays.copyOfRange(stored, (int) offset, stored.length));
                assertThat(writing.storedLength(plain.length)).isEqualTo(stored.length);
                assertThat(writing.holds(plain.length, stored.length)).isTrue();
                assertThat(writing.holds(plain.length, key.storedLength(plain.length)))
                        .as("a DHTENC02 object is written again, for the previous release to read")
                        .isFalse();
                files++;
            }
        }
        assertThat(files).isGreaterThan(8);
        byte[] data = random(3 * Encryption.V1_CHUNK + 5);
        byte[] fresh = writing.encode(new ByteArrayInputStream(data)).readAllBytes();
        assertThat(new String(fresh, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("DHTENC01");
        assertThat(key.decode(new ByteArrayInputStream(fresh)).readAllBytes()).isEqualTo(data);
        newFormat[0] = true;
        assertThat(new String(
                        key.writing().encode(new ByteArrayInputStream(data)).readAllBytes(),
                        0,
                        8,
                        StandardCharsets.US_ASCII))
                .as("the level raised")
                .isEqualTo("DHTENC02");
    }

    static Path fixture() throws URISyntaxException {
        return Path.of(EncryptionTest.class
                        .getResource("/backup-f09ee83/encryption-key")
                        .toURI())
                .getParent();
    }
}
