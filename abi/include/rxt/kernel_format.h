/* kernel_format.h: the portable kernel format of rxt, as a C99 spec (codes and limits).
 *
 * A kernel function (loop-level code: buffers, loops, stores, blocks, scalar expressions)
 * crosses from the compiler to a backend plugin as bytes in this format (rxt_backend_t's
 * load_kernel and emit_library, rxt/plugin.h). This header gives every number a reader needs:
 * the magic, the version, the limits and the codes of each enumeration. Their values are part
 * of the format: never renumbered, only appended (and RXT_KF_VERSION is bumped when a reader of
 * the old version could not read the new bytes).
 *
 * The bytes (version 1; docs/kernel_format.md has the semantics and every invariant a valid
 * kernel keeps). Little-endian; varuint = unsigned LEB128 (at most 64 bits); varint = zigzag
 * LEB128; f64 = IEEE-754 binary64; string = varuint length, then the bytes; index = varuint
 * (below 2^31); optional index = varuint, 0 for none, else index + 1; list = varuint count,
 * then the items.
 *
 *   header      "RXTK" (RXT_KF_MAGIC_*), u32 version, string name
 *   variables   list of { string name, u8 dtype }
 *   buffers     list of { string name, u8 dtype, list of index shape, u8 has_strides,
 *                         [ndim x index strides] }
 *   expressions list of { u8 rxt_kf_expr_kind_t, u8 dtype, payload by kind:
 *                 INT_IMM varint | FLOAT_IMM f64 | VAR index | BINARY u8 op, index a, index b |
 *                 NOT index | SELECT index cond, index if_true, index if_false | CAST index |
 *                 INTRINSIC u8 intrinsic, list of index | LOAD index buffer, list of index }
 *   statements  list of { u8 rxt_kf_stmt_kind_t, payload by kind:      (the last is the body)
 *                 SEQ list of index | FOR index var, index extent, u8 loop kind, index body |
 *                 STORE index buffer, list of index, index value |
 *                 IF index cond, index then, optional index else | ALLOCATE index buffer, index body |
 *                 BLOCK string name, list of { index var, index value, u8 iter kind },
 *                       optional index init, index body }
 *   parameters  list of { u8 rxt_kf_param_kind_t, index }   (outputs are the trailing buffers)
 *   attributes  list of { string name, value }; value = u8 rxt_kf_attr_kind_t, then:
 *                 NONE | BOOL u8 | INT varint | FLOAT f64 | STRING string | DTYPE u8 |
 *                 TENSOR u8 dtype, list of varint dims, varuint nbytes, bytes | ARRAY list of value
 *   end         no byte may follow
 *
 * A C++ backend decodes and checks kernels with the plugin SDK (rxt/plugin_support/kernel_codec.h),
 * which takes its codes from this header. */
#ifndef RXT_KERNEL_FORMAT_H_
#define RXT_KERNEL_FORMAT_H_

/* The first four bytes: "RXTK". */
#define RXT_KF_MAGIC_0 'R'
#define RXT_KF_MAGIC_1 'X'
#define RXT_KF_MAGIC_2 'T'
#define RXT_KF_MAGIC_3 'K'
/* The version this header describes (the u32 after the magic). */
#define RXT_KF_VERSION 1
/* Deepest nesting accepted for expressions and, separately, for statements. */
#define RXT_KF_MAX_DEPTH 1024
/* Most dimensions a buffer or tensor attribute may have. */
#define RXT_KF_MAX_NDIM 64
/* Deepest nesting of array attribute values. */
#define RXT_KF_MAX_ATTR_DEPTH 64
/* "No statement" in a decoded optional statement reference (the bytes write it as 0). */
#define RXT_KF_NONE (-1)

/* Element types. UNKNOWN is only the value of a dtype attribute, never the type of data. */
typedef enum rxt_kf_dtype_e {
  RXT_KF_DTYPE_UNKNOWN = 0,
  RXT_KF_DTYPE_FLOAT16 = 1,
  RXT_KF_DTYPE_BFLOAT16 = 2,
  RXT_KF_DTYPE_FLOAT32 = 3,
  RXT_KF_DTYPE_FLOAT64 = 4,
  RXT_KF_DTYPE_INT8 = 5,
  RXT_KF_DTYPE_INT16 = 6,
  RXT_KF_DTYPE_INT32 = 7,
  RXT_KF_DTYPE_INT64 = 8,
  RXT_KF_DTYPE_UINT8 = 9,
  RXT_KF_DTYPE_BOOL = 10, /* stored as one byte, 0 or 1 */
  RXT_KF_NUM_DTYPES = 11
} rxt_kf_dtype_t;

/* Scalar expression nodes (operands are expressions with smaller indices). */
typedef enum rxt_kf_expr_kind_e {
  RXT_KF_EXPR_INT_IMM = 0,   /* an integer or bool immediate */
  RXT_KF_EXPR_FLOAT_IMM = 1, /* a float immediate */
  RXT_KF_EXPR_VAR = 2,       /* a variable */
  RXT_KF_EXPR_BINARY = 3,    /* op(a, b): rxt_kf_binary_op_t */
  RXT_KF_EXPR_NOT = 4,       /* !x */
  RXT_KF_EXPR_SELECT = 5,    /* cond ? if_true : if_false */
  RXT_KF_EXPR_CAST = 6,      /* x converted to the node's dtype */
  RXT_KF_EXPR_INTRINSIC = 7, /* f(args): rxt_kf_intrinsic_t */
  RXT_KF_EXPR_LOAD = 8,      /* buffer[indices] */
  RXT_KF_NUM_EXPR_KINDS = 9
} rxt_kf_expr_kind_t;

typedef enum rxt_kf_binary_op_e {
  RXT_KF_OP_ADD = 0,
  RXT_KF_OP_SUB = 1,
  RXT_KF_OP_MUL = 2,
  RXT_KF_OP_DIV = 3,
  RXT_KF_OP_FLOOR_DIV = 4,
  RXT_KF_OP_FLOOR_MOD = 5,
  RXT_KF_OP_MIN = 6,
  RXT_KF_OP_MAX = 7,
  RXT_KF_OP_EQ = 8,
  RXT_KF_OP_NE = 9,
  RXT_KF_OP_LT = 10,
  RXT_KF_OP_LE = 11,
  RXT_KF_OP_GT = 12,
  RXT_KF_OP_GE = 13,
  RXT_KF_OP_AND = 14,
  RXT_KF_OP_OR = 15,
  RXT_KF_NUM_BINARY_OPS = 16
} rxt_kf_binary_op_t;

typedef enum rxt_kf_intrinsic_e {
  RXT_KF_INTRINSIC_EXP = 0,
  RXT_KF_INTRINSIC_LOG = 1,
  RXT_KF_INTRINSIC_SQRT = 2,
  RXT_KF_INTRINSIC_RSQRT = 3,
  RXT_KF_INTRINSIC_TANH = 4,
  RXT_KF_INTRINSIC_SIGMOID = 5,
  RXT_KF_INTRINSIC_ABS = 6,
  RXT_KF_INTRINSIC_NEG = 7,
  RXT_KF_INTRINSIC_ERF = 8,
  RXT_KF_INTRINSIC_FLOOR = 9,
  RXT_KF_INTRINSIC_CEIL = 10,
  RXT_KF_INTRINSIC_ROUND = 11,
  RXT_KF_INTRINSIC_ISNAN = 12,
  RXT_KF_INTRINSIC_POW = 13, /* the only one of two arguments */
  /* Appended (session 13): a reader that predates them refuses a kernel using one as an
   * invalid intrinsic; kernels without them read as before (still version 1). */
  RXT_KF_INTRINSIC_SIN = 14,
  RXT_KF_INTRINSIC_COS = 15,
  RXT_KF_INTRINSIC_TAN = 16,
  RXT_KF_INTRINSIC_ASIN = 17,
  RXT_KF_INTRINSIC_ACOS = 18,
  RXT_KF_INTRINSIC_ATAN = 19,
  RXT_KF_INTRINSIC_SINH = 20,
  RXT_KF_INTRINSIC_COSH = 21,
  RXT_KF_INTRINSIC_ASINH = 22,
  RXT_KF_INTRINSIC_ACOSH = 23,
  RXT_KF_INTRINSIC_ATANH = 24,
  RXT_KF_NUM_INTRINSICS = 25
} rxt_kf_intrinsic_t;

/* Statement nodes (children are statements with smaller indices; they form a tree). */
typedef enum rxt_kf_stmt_kind_e {
  RXT_KF_STMT_SEQ = 0,
  RXT_KF_STMT_FOR = 1,
  RXT_KF_STMT_STORE = 2,
  RXT_KF_STMT_IF = 3,
  RXT_KF_STMT_ALLOCATE = 4,
  RXT_KF_STMT_BLOCK = 5,
  RXT_KF_NUM_STMT_KINDS = 6
} rxt_kf_stmt_kind_t;

typedef enum rxt_kf_loop_kind_e {
  RXT_KF_LOOP_SERIAL = 0,
  RXT_KF_LOOP_PARALLEL = 1,
  RXT_KF_LOOP_VECTORIZED = 2,
  RXT_KF_LOOP_UNROLLED = 3,
  RXT_KF_NUM_LOOP_KINDS = 4
} rxt_kf_loop_kind_t;

/* A block iterator: spatial, or a reduction (the block's init runs when every reduce
 * iterator is 0). */
typedef enum rxt_kf_iter_kind_e { RXT_KF_ITER_SPATIAL = 0, RXT_KF_ITER_REDUCE = 1 } rxt_kf_iter_kind_t;

/* A kernel parameter: a buffer, or a scalar (a variable; called with a 0-d int64 or float64 tensor). */
typedef enum rxt_kf_param_kind_e { RXT_KF_PARAM_BUFFER = 0, RXT_KF_PARAM_SCALAR = 1 } rxt_kf_param_kind_t;

typedef enum rxt_kf_attr_kind_e {
  RXT_KF_ATTR_NONE = 0,
  RXT_KF_ATTR_BOOL = 1,
  RXT_KF_ATTR_INT = 2,
  RXT_KF_ATTR_FLOAT = 3,
  RXT_KF_ATTR_STRING = 4,
  RXT_KF_ATTR_DTYPE = 5, /* RXT_KF_DTYPE_UNKNOWN allowed */
  RXT_KF_ATTR_TENSOR = 6,
  RXT_KF_ATTR_ARRAY = 7, /* nested at most RXT_KF_MAX_ATTR_DEPTH deep */
  RXT_KF_NUM_ATTR_KINDS = 8
} rxt_kf_attr_kind_t;

#endif /* RXT_KERNEL_FORMAT_H_ */
