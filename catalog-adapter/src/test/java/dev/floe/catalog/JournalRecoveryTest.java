package dev.floe.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal beside a catalog file ({@link CommitJournal}): only its last record can be torn, and a
 * torn one is dropped whatever byte it was cut at; a journal that cannot be replayed makes the
 * catalog refused with one message naming what was kept, and nothing is overwritten.
 */
class JournalRecoveryTest {
    @TempDir
    Path root;

    @Test
    void aRecordCutAtAnyByteIsDroppedAndTheCommitsBeforeItKept() throws IOException {
        Path file = root.resolve("catalog.db");
        long[] ends = new long[4];
        try (CommitJournal journal = CommitJournal.start(file)) {
            ends[0] = journal.size();
            for (int n = 1; n <= 3; n++) {
                journal.append(
                        List.of(
                                new CommitJournal.Write(8L * n, bytes(n, 20)),
                                new CommitJournal.Write(4096, bytes(n, 3))),
                        8192);
                ends[n] = journal.size();
            }
        }
        byte[] whole = Files.readAllBytes(CommitJournal.pathOf(file));
        assertThat(CommitJournal.read(CommitJournal.pathOf(file)).commits()).hasSize(3);

        Path cut = root.resolve("cut.journal");
        for (long length = ends[2]; length < ends[3]; length++) {
            Files.write(cut, Arrays.copyOf(whole, (int) length));
            CommitJournal.Contents contents = CommitJournal.read(cut);
            assertThat(contents.commits()).as("cut at %d", length).hasSize(2);
            assertThat(contents.tornBytes()).isEqualTo(length - ends[2]);
            assertThat(contents.commits().get(1).writes().get(0).bytes()).isEqualTo(bytes(2, 20));
        }
        for (long at = ends[2]; at < ends[3]; at++) {
            byte[] flipped = whole.clone();
            flipped[(int) at] ^= 0x10;
            Files.write(cut, flipped);
            assertThat(CommitJournal.read(cut).commits())
                    .as("byte %d changed", at)
                    .hasSize(2);
        }
        // a crash while the journal itself was being started: no record, nothing to replay
        for (int length = 0; length < CommitJournal.HEADER; length++) {
            Files.write(cut, Arrays.copyOf(whole, length));
            assertThat(CommitJournal.read(cut).commits()).isEmpty();
        }
    }

    @Test
    void aJournalLeftWithoutItsCatalogFileIsRefusedAndKept() throws IOException {
        Path file = root.resolve("catalog.db");
        Path journal = CommitJournal.pathOf(file);
        Files.write(journal, CommitJournal.MAGIC);

        assertThatThrownBy(() -> CatalogStore.acquire(file))
                .isInstanceOf(CatalogFileException.class)
                .hasMessageContaining(file + " does not exist, but its journal " + journal + " does")
                .hasMessageContaining("left as it is");
        assertThat(file).doesNotExist();
        assertThat(Files.readAllBytes(journal)).isEqualTo(CommitJournal.MAGIC);
    }

    @Test
    void aJournalThatIsNotFloesIsRefusedAndBothKept() throws IOException {
        Path file = newCatalog();
        Path journal = CommitJournal.pathOf(file);
        Files.writeString(journal, "something else entirely");
        byte[] catalog = Files.readAllBytes(file);

        assertThatThrownBy(() -> CatalogStore.acquire(file))
                .isInstanceOf(CatalogFileException.class)
                .hasMessageContaining("has a journal " + journal + " that is not a floe journal")
                .hasMessageContaining("Both were left as they are");
        assertThat(Files.readAllBytes(file)).isEqualTo(catalog);
        assertThat(journal).hasContent("something else entirely");
    }

    @Test
    void aJournalThatReplaysToAFileMapDbCannotReadIsRefusedAndNothingOverwritten() throws IOException {
        Path file = newCatalog();
        Path journal = CommitJournal.pathOf(file);
        try (CommitJournal writer = CommitJournal.start(file)) {
            // a "commit" that writes over MapDB's header checksum and index: no MapDB commit does that
            writer.append(List.of(new CommitJournal.Write(16, bytes(7, 200))), Files.size(file));
        }
        byte[] catalog = Files.readAllBytes(file);
        byte[] records = Files.readAllBytes(journal);

        for (int attempt = 0; attempt < 2; attempt++) {
            assertThatThrownBy(() -> CatalogStore.acquire(file))
                    .isInstanceOf(CatalogFileException.class)
                    .isNotInstanceOf(CatalogInUseException.class)
                    .hasMessageStartingWith("Catalog file " + file + " cannot be recovered: replaying the 1"
                            + " commit(s) of its journal " + journal + " gives a file MapDB cannot read")
                    .hasMessageContaining("Nothing was overwritten")
                    .hasMessageContaining("kept as " + file + JournalReplay.RECOVERING);
            assertThat(Files.readAllBytes(file)).isEqualTo(catalog);
            assertThat(Files.readAllBytes(journal)).isEqualTo(records);
            assertThat(listing())
                    .containsExactlyInAnyOrder(
                            "catalog.db", "catalog.db.journal", "catalog.db.lock", "catalog.db.recovering");
        }
    }

    @Test
    void aJournalWithOnlyTornBytesLeavesTheFileAsItWasAndIsRemoved() throws IOException {
        Path file = newCatalog();
        Path journal = CommitJournal.pathOf(file);
        byte[] catalog = Files.readAllBytes(file);
        byte[] torn = Arrays.copyOf(CommitJournal.MAGIC, CommitJournal.HEADER + 11);
        Files.write(journal, torn);

        CatalogStore store = CatalogStore.acquire(file);
        try {
            TornCommitTest.assertCommitted(store, 0, "after a journal with a torn first record");
        } finally {
            store.release();
        }
        assertThat(listing()).containsExactlyInAnyOrder("catalog.db", "catalog.db.lock");
        assertThat(catalog).isNotEmpty();
    }

    /** A catalog file holding commit 0 of {@link HaltInCommit#commit}, closed cleanly. */
    private Path newCatalog() {
        Path file = root.resolve("catalog.db");
        CatalogStore store = CatalogStore.acquire(file);
        try {
            HaltInCommit.commit(store, 0);
        } finally {
            store.release();
        }
        return file;
    }

    private static byte[] bytes(int seed, int length) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) (0x40 + seed));
        return bytes;
    }

    private List<String> listing() throws IOException {
        try (Stream<Path> files = Files.list(root)) {
            return files.map(path -> path.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }
}
