package rxt

import "fmt"

// DType is a DLPack data type: type code (DLDataTypeCode), bits and lanes.
type DType struct {
	Code  uint8
	Bits  uint8
	Lanes uint16
}

// The dtypes of rxt that Go has types for (DLPack codes: 0 int, 1 uint, 2 float). rxt's others
// (float16, bfloat16, bool: code 1 bits 8 when rxt returns it) come out as Tensors of that DType,
// readable with Tensor.Bytes.
var (
	Int8    = DType{0, 8, 1}
	Int16   = DType{0, 16, 1}
	Int32   = DType{0, 32, 1}
	Int64   = DType{0, 64, 1}
	Uint8   = DType{1, 8, 1}
	Float32 = DType{2, 32, 1}
	Float64 = DType{2, 64, 1}
)

// String names the dtype as rxt's text format does ("float32"); others as "code5bits16".
func (d DType) String() string {
	names := map[uint8]string{0: "int", 1: "uint", 2: "float", 4: "bfloat", 6: "bool"}
	name, known := names[d.Code]
	switch {
	case !known || d.Lanes != 1:
		return fmt.Sprintf("code%dbits%dlanes%d", d.Code, d.Bits, d.Lanes)
	case d.Code == 6:
		return "bool"
	default:
		return fmt.Sprintf("%s%d", name, d.Bits)
	}
}

// Element is a Go type whose slices cross to rxt as tensors: one per rxt dtype Go has
// (uint16, uint32 and uint64 are not rxt dtypes).
type Element interface {
	int8 | int16 | int32 | int64 | uint8 | float32 | float64
}

// dtypeOf is the DLPack dtype of T.
func dtypeOf[T Element]() DType {
	var zero T
	switch any(zero).(type) {
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case float32:
		return Float32
	default:
		return Float64
	}
}

// shapeText formats a shape as rxt's messages do: "(64, 784)".
func shapeText(shape []int64) string {
	text := "("
	for i, d := range shape {
		if i > 0 {
			text += ", "
		}
		text += fmt.Sprint(d)
	}
	if len(shape) == 1 {
		text += ","
	}
	return text + ")"
}
