// Package fashionmnist reads Fashion-MNIST's gzip-compressed IDX files (Debian's
// dataset-fashion-mnist puts them in /usr/share/datasets/fashion-mnist) for the examples and
// the tests: images as float32 in [0, 1], 784 per image, and labels as int64 class indices, as
// the seed MLP (examples/mlp.rxt) and the cross_entropy loss take them.
package fashionmnist

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// DefaultDir is where Debian's dataset-fashion-mnist installs the files.
const DefaultDir = "/usr/share/datasets/fashion-mnist"

// ImageSize is the pixels of one image (28 x 28).
const ImageSize = 784

// Set is the first images of a split.
type Set struct {
	Images []float32 // Count * ImageSize
	Labels []int64   // Count
	Count  int
}

// Load reads the first |limit| images and labels (fewer if the split has fewer; limit <= 0:
// all) of split "train" or "t10k" from |dir|.
func Load(dir, split string, limit int) (*Set, error) {
	pixels, count, err := readIDX(filepath.Join(dir, split+"-images-idx3-ubyte.gz"), 0x803, ImageSize, limit)
	if err != nil {
		return nil, err
	}
	labels, labelCount, err := readIDX(filepath.Join(dir, split+"-labels-idx1-ubyte.gz"), 0x801, 1, limit)
	if err != nil {
		return nil, err
	}
	if labelCount != count {
		return nil, fmt.Errorf("fashionmnist: %d images but %d labels in %s", count, labelCount, split)
	}
	set := &Set{Images: make([]float32, len(pixels)), Labels: make([]int64, count), Count: count}
	for i, p := range pixels {
		set.Images[i] = float32(p) / 255
	}
	for i, l := range labels {
		set.Labels[i] = int64(l)
	}
	return set, nil
}

// readIDX reads up to |limit| items of |itemSize| bytes from the IDX file at |path|, checking
// its magic number.
func readIDX(path string, magic uint32, itemSize, limit int) ([]byte, int, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("fashionmnist: %w", err)
	}
	defer file.Close()
	reader, err := gzip.NewReader(file)
	if err != nil {
		return nil, 0, fmt.Errorf("fashionmnist: %s: %w", path, err)
	}
	var header [2]uint32 // magic, item count
	if err := binary.Read(reader, binary.BigEndian, &header); err != nil {
		return nil, 0, fmt.Errorf("fashionmnist: %s: %w", path, err)
	}
	if header[0] != magic {
		return nil, 0, fmt.Errorf("fashionmnist: %s: magic %#x, want %#x", path, header[0], magic)
	}
	dims := make([]uint32, magic&0xff-1) // the dims after the count (28, 28 for images)
	if err := binary.Read(reader, binary.BigEndian, dims); err != nil {
		return nil, 0, fmt.Errorf("fashionmnist: %s: %w", path, err)
	}
	size := 1
	for _, d := range dims {
		size *= int(d)
	}
	if size != itemSize {
		return nil, 0, fmt.Errorf("fashionmnist: %s: items of %d bytes, want %d", path, size, itemSize)
	}
	count := int(header[1])
	if limit > 0 && limit < count {
		count = limit
	}
	data := make([]byte, count*itemSize)
	if _, err := io.ReadFull(reader, data); err != nil {
		return nil, 0, fmt.Errorf("fashionmnist: %s: %w", path, err)
	}
	return data, count, nil
}
