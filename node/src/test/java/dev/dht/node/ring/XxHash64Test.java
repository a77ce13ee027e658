package dev.dht.node.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class XxHash64Test {
    private static final long PRIME32 = 2654435761L;

    /**
     * The sanity buffer of the xxHash reference test suite: byte i is the top byte of PRIME32 * PRIME64^i
     * (mod 2^64), with PRIME64 = 11400714785074694797.
     */
    private static byte[] sanityBuffer(int length) {
        byte[] buffer = new byte[length];
        long generator = PRIME32;
        for (int i = 0; i < length; i++) {
            buffer[i] = (byte) (generator >>> 56);
            generator *= 0x9E3779B185EBCA8DL; // 11400714785074694797
        }
        return buffer;
    }

    /**
     * XSUM_XXH64_testdata of the xxHash reference test suite (cli/xsum_sanity_check.c): lengths that cover every
     * branch (empty, a 1-byte tail, a 4-byte tail, 8+4+1+1, and 32-byte stripes followed by all tails), two seeds.
     */
    @ParameterizedTest(name = "length {0}, seed {1}")
    @CsvSource({
        "0,   0,          0xEF46DB3751D8E999",
        "0,   2654435761, 0xAC75FDA2929B17EF",
        "1,   0,          0xE934A84ADB052768",
        "1,   2654435761, 0x5014607643A9B4C3",
        "4,   0,          0x9136A0DCA57457EE",
        "14,  0,          0x8282DCC4994E35C8",
        "14,  2654435761, 0xC3BD6BF63DEB6DF0",
        "222, 0,          0xB641AE8CB691C174",
        "222, 2654435761, 0x20CB8AB7AE10C14A",
    })
    void matchesTheReferenceSanityVectors(int length, long seed, String expectedHex) {
        long expected = Long.parseUnsignedLong(expectedHex.substring(2), 16);
        assertThat(XxHash64.hash(sanityBuffer(length), 0, length, seed)).isEqualTo(expected);
    }

    @Test
    void matchesThePublishedStringVectors() {
        assertThat(XxHash64.hash(new byte[0])).isEqualTo(0xEF46DB3751D8E999L);
        assertThat(XxHash64.hash("a".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0xD24EC4F1A98C6E5BL);
        assertThat(XxHash64.hash("abc".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x44BC2CF5AD770999L);
    }

    @Test
    void hashesOnlyTheGivenSliceOfTheArray() {
        byte[] data = sanityBuffer(300);
        for (int length = 0; length <= 100; length++) {
            byte[] copy = new byte[length];
            System.arraycopy(data, 7, copy, 0, length);
            assertThat(XxHash64.hash(data, 7, length, 42))
                    .as("length %d", length)
                    .isEqualTo(XxHash64.hash(copy, 0, length, 42));
        }
    }

    @Test
    void hashLongEqualsTheHashOfItsEightLittleEndianBytes() {
        Random random = new Random(1);
        for (int i = 0; i < 1_000; i++) {
            long value = random.nextLong();
            long seed = random.nextLong();
            byte[] bytes = ByteBuffer.allocate(8)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(value)
                    .array();
            assertThat(XxHash64.hashLong(value, seed)).isEqualTo(XxHash64.hash(bytes, 0, 8, seed));
        }
    }

    @Test
    void flipsAboutHalfTheOutputBitsWhenOneInputBitFlips() {
        // the avalanche placement relies on: "key1" and "key2" land far apart
        Random random = new Random(2);
        long flipped = 0;
        long trials = 0;
        for (int i = 0; i < 2_000; i++) {
            byte[] key = new byte[1 + random.nextInt(40)];
            random.nextBytes(key);
            long before = XxHash64.hash(key);
            int bit = random.nextInt(key.length * 8);
            key[bit / 8] ^= (byte) (1 << (bit % 8));
            flipped += Long.bitCount(before ^ XxHash64.hash(key));
            trials++;
        }
        assertThat((double) flipped / trials).isBetween(31.0, 33.0);
    }

    @Test
    void sequentialKeysGetDistinctHashes() {
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            seen.add(XxHash64.hash(("key" + i).getBytes(StandardCharsets.UTF_8)));
        }
        assertThat(seen).hasSize(100_000);
    }

    @Test
    void rejectsASliceOutsideTheArray() {
        assertThatThrownBy(() -> XxHash64.hash(new byte[4], 2, 3, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> XxHash64.hash(new byte[4], -1, 1, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
