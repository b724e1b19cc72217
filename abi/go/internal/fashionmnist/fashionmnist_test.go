package fashionmnist

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeIDX writes a gzip-compressed IDX file.
func writeIDX(t *testing.T, path string, header []uint32, data []byte) {
	var raw bytes.Buffer
	binary.Write(&raw, binary.BigEndian, header)
	raw.Write(data)
	var packed bytes.Buffer
	w := gzip.NewWriter(&packed)
	w.Write(raw.Bytes())
	w.Close()
	if err := os.WriteFile(path, packed.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadScalesImagesAndKeepsLabels(t *testing.T) {
	dir := t.TempDir()
	pixels := make([]byte, 3*ImageSize)
	pixels[0], pixels[ImageSize] = 255, 51
	writeIDX(t, filepath.Join(dir, "train-images-idx3-ubyte.gz"), []uint32{0x803, 3, 28, 28}, pixels)
	writeIDX(t, filepath.Join(dir, "train-labels-idx1-ubyte.gz"), []uint32{0x801, 3}, []byte{9, 0, 4})
	set, err := Load(dir, "train", 2)
	if err != nil {
		t.Fatal(err)
	}
	if set.Count != 2 || len(set.Images) != 2*ImageSize || set.Images[0] != 1 || set.Images[ImageSize] != 0.2 ||
		set.Labels[0] != 9 || set.Labels[1] != 0 {
		t.Fatalf("count %d, pixels %v %v, labels %v", set.Count, set.Images[0], set.Images[ImageSize], set.Labels)
	}
	writeIDX(t, filepath.Join(dir, "t10k-images-idx3-ubyte.gz"), []uint32{0x801, 3, 28, 28}, pixels)
	if _, err := Load(dir, "t10k", 0); err == nil || !strings.Contains(err.Error(), "magic 0x801, want 0x803") {
		t.Fatalf("a wrong magic number: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "absent"), "train", 0); err == nil {
		t.Fatal("a missing directory loaded")
	}
}
