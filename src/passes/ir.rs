//! IR operations the passes need that melior does not wrap safely: collecting
//! operations for later rewriting, uses of a value, replacing and erasing,
//! string attributes as bytes, emitting a diagnostic, and classifying element
//! types.
//! Every `unsafe` block of the passes lives here.

use std::ffi::CString;

use melior::{
    Context, StringRef,
    ir::{
        Attribute, AttributeLike, BlockLike, BlockRef, Identifier, Location, OperationRef, Type,
        TypeLike, Value, ValueLike,
        attribute::StringAttribute,
        operation::{OperationLike, WalkOrder, WalkResult},
        r#type::{MemRefType, ShapedTypeLike},
    },
};
use mlir_sys::{
    mlirAffineMapIsIdentity, mlirAttributeIsAFlatSymbolRef, mlirAttributeIsASymbolRef,
    mlirBlockAppendOwnedOperation, mlirBlockArgumentGetOwner, mlirBlockGetParentOperation,
    mlirComplexTypeGetElementType, mlirEmitError, mlirFlatSymbolRefAttrGetValue,
    mlirFloatTypeGetWidth, mlirIdentifierStr, mlirIntegerTypeGetWidth, mlirMemRefTypeGetAffineMap,
    mlirMemRefTypeGetMemorySpace, mlirMemRefTypeGetStridesAndOffset, mlirOpOperandGetNextUse,
    mlirOpOperandGetOwner, mlirOpOperandIsNull, mlirOpResultGetOwner, mlirOperationDestroy,
    mlirOperationGetName, mlirOperationMoveAfter, mlirOperationMoveBefore,
    mlirOperationRemoveFromParent, mlirOperationSetAttributeByName, mlirShapedTypeGetDimSize,
    mlirShapedTypeGetDynamicStrideOrOffset, mlirShapedTypeGetElementType, mlirShapedTypeGetRank,
    mlirStringAttrGet, mlirStringAttrGetValue, mlirSymbolRefAttrGetNestedReference,
    mlirSymbolRefAttrGetNumNestedReferences, mlirSymbolRefAttrGetRootReference, mlirTypeIsAComplex,
    mlirTypeIsAFloat, mlirTypeIsAIndex, mlirTypeIsAInteger, mlirTypeIsAVector,
    mlirValueGetFirstUse, mlirValueIsABlockArgument, mlirValueReplaceAllUsesOfWith,
    mlirVectorTypeIsScalable,
};

/// Runs `body` with the context that owns `operation`.
pub fn with_context<'c, R>(
    operation: OperationRef<'c, '_>,
    body: impl FnOnce(&'c Context) -> R,
) -> R {
    let context = operation.context();
    // SAFETY: `to_ref` hands out a reference into `context`, a local that lives
    // until `body` returns; the context it names outlives the operation.
    body(unsafe { context.to_ref() })
}

/// The name of an operation, e.g. `executor.launch`.
pub fn operation_name<'c>(operation: OperationRef<'c, '_>) -> &'c str {
    // SAFETY: operation names are identifiers interned in the context, which
    // lives for 'c; names are ASCII, so the UTF-8 check cannot fail.
    unsafe {
        StringRef::from_raw(mlirIdentifierStr(mlirOperationGetName(operation.to_raw())))
            .as_str()
            .unwrap_or("<non-UTF-8 operation name>")
    }
}

/// The bytes of an operation's name, e.g. `executor.launch`, unchecked: for
/// comparing with known names, which needs no UTF-8 check.
pub fn operation_name_bytes<'c>(operation: OperationRef<'c, '_>) -> &'c [u8] {
    // SAFETY: operation names are identifiers interned in the context, which
    // lives for 'c.
    unsafe { string_ref_bytes(mlirIdentifierStr(mlirOperationGetName(operation.to_raw()))) }
}

/// The operations nested in `root` (itself included) that `keep` accepts, in
/// pre-order. The references stay valid while the operations are not erased.
pub fn collect_operations<'c, 'a>(
    root: OperationRef<'c, 'a>,
    mut keep: impl FnMut(OperationRef<'c, 'a>) -> bool,
) -> Vec<OperationRef<'c, 'a>> {
    let mut raw = Vec::new();
    root.walk(WalkOrder::PreOrder, |operation| {
        raw.push(operation.to_raw());
        WalkResult::Advance
    });
    raw.into_iter()
        // SAFETY: each handle was just produced by walking `root`, which outlives
        // 'a, and nothing has been erased since.
        .map(|raw| unsafe { OperationRef::from_raw(raw) })
        .filter(|operation| keep(*operation))
        .collect()
}

/// The operations that use `value`, one entry per use.
pub fn users<'c, 'a>(value: Value<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut users = Vec::new();
    // SAFETY: `value` is a live value; the use list is only read, and each owner
    // is a live operation of the same IR as `value`.
    unsafe {
        let mut operand = mlirValueGetFirstUse(value.to_raw());
        while !mlirOpOperandIsNull(operand) {
            users.push(OperationRef::from_raw(mlirOpOperandGetOwner(operand)));
            operand = mlirOpOperandGetNextUse(operand);
        }
    }
    users
}

/// The op whose region `value` is defined in (the parent of its defining op,
/// or of the block it is an argument of); None at the top level.
pub fn scope_of_value<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    // SAFETY: the value is live; its owner (an op or a block) and that
    // owner's parent op belong to the same IR, alive for 'a. A null parent
    // (a detached block, a top-level op) gives None.
    unsafe {
        let raw = value.to_raw();
        let parent = if mlirValueIsABlockArgument(raw) {
            mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(raw))
        } else {
            let owner = mlirOpResultGetOwner(raw);
            return OperationRef::from_option_raw(owner)?.parent_operation();
        };
        OperationRef::from_option_raw(parent)
    }
}

/// Makes every use of `of` use `with` instead.
pub fn replace_all_uses(of: Value<'_, '_>, with: Value<'_, '_>) {
    // SAFETY: both values are live and belong to the same context.
    unsafe { mlirValueReplaceAllUsesOfWith(of.to_raw(), with.to_raw()) }
}

/// Erases an operation whose results have no uses left. The reference must
/// not be used afterwards.
pub fn erase(operation: OperationRef<'_, '_>) {
    // SAFETY: the caller passes an operation it owns through its block and no
    // longer uses; mlirOperationDestroy unlinks it from the block and frees it.
    unsafe { mlirOperationDestroy(operation.to_raw()) }
}

/// Moves `operation` right before `anchor`, which is in a block.
pub fn move_before(operation: OperationRef<'_, '_>, anchor: OperationRef<'_, '_>) {
    // SAFETY: both ops are live and `anchor` is in a block, which takes
    // `operation` over from its block.
    unsafe { mlirOperationMoveBefore(operation.to_raw(), anchor.to_raw()) }
}

/// Moves `operation` right after `anchor`, which is in a block.
pub fn move_after(operation: OperationRef<'_, '_>, anchor: OperationRef<'_, '_>) {
    // SAFETY: as in `move_before`.
    unsafe { mlirOperationMoveAfter(operation.to_raw(), anchor.to_raw()) }
}

/// Moves `operation` to the end of `block`.
pub fn move_to_end(operation: OperationRef<'_, '_>, block: BlockRef<'_, '_>) {
    // SAFETY: the op is live and in a block; once removed from it, it is
    // owned by nobody until `block`, which is live, takes it over.
    unsafe {
        mlirOperationRemoveFromParent(operation.to_raw());
        mlirBlockAppendOwnedOperation(block.to_raw(), operation.to_raw());
    }
}

/// Sets (or replaces) an attribute of an operation found by a walk.
pub fn set_attribute(operation: OperationRef<'_, '_>, name: &str, attribute: Attribute<'_>) {
    // SAFETY: the operation and the attribute are live and share a context; the
    // name is copied by MLIR.
    unsafe {
        mlirOperationSetAttributeByName(
            operation.to_raw(),
            StringRef::new(name).to_raw(),
            attribute.to_raw(),
        )
    }
}

/// Sets the attribute `name`, an identifier taken from the op itself: its
/// bytes need not be UTF-8, so they are passed on without a `&str`.
pub fn set_attribute_named(
    operation: OperationRef<'_, '_>,
    name: Identifier<'_>,
    attribute: Attribute<'_>,
) {
    // SAFETY: the operation, the identifier and the attribute are live and
    // share a context; the name's bytes are owned by that context and copied
    // by MLIR.
    unsafe {
        mlirOperationSetAttributeByName(
            operation.to_raw(),
            mlirIdentifierStr(name.to_raw()),
            attribute.to_raw(),
        )
    }
}

/// The bytes of a string attribute. MLIR strings are bytes: they need not be
/// UTF-8, and may be empty.
pub fn string_bytes<'c>(attribute: StringAttribute<'c>) -> &'c [u8] {
    // SAFETY: a string attribute's value is owned by its context, which lives
    // for 'c; an empty value may come with a null pointer, so it is not read.
    unsafe {
        let value = mlirStringAttrGetValue(attribute.to_raw());
        if value.length == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(value.data.cast(), value.length)
        }
    }
}

/// The name a flat symbol reference (`@name`) refers to, as bytes; None for
/// other attributes.
pub fn flat_symbol_bytes<'c>(attribute: Attribute<'c>) -> Option<&'c [u8]> {
    // SAFETY: the value is read only after the kind check; it is owned by the
    // attribute's context, which lives for 'c.
    unsafe {
        if !mlirAttributeIsAFlatSymbolRef(attribute.to_raw()) {
            return None;
        }
        let value = mlirFlatSymbolRefAttrGetValue(attribute.to_raw());
        Some(if value.length == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(value.data.cast(), value.length)
        })
    }
}

/// A string attribute holding `bytes`, which need not be UTF-8.
pub fn string_attribute<'c>(context: &'c Context, bytes: &[u8]) -> Attribute<'c> {
    let value = mlir_sys::MlirStringRef {
        data: bytes.as_ptr().cast(),
        length: bytes.len(),
    };
    // SAFETY: the bytes outlive the call, which copies them into the context.
    unsafe { Attribute::from_raw(mlirStringAttrGet(context.to_raw(), value)) }
}

/// Reports an error at `location` through the context's diagnostic handlers
/// (printed by mlir-opt, matched by `-verify-diagnostics`).
pub fn emit_error(location: Location<'_>, message: &str) {
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: the location is live and the message is a NUL-terminated string
    // that MLIR copies.
    unsafe { mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// The memory space attribute of a memref type, if it has one.
pub fn memref_memory_space<'c>(memref: Type<'c>) -> Option<Attribute<'c>> {
    // SAFETY: callers pass memref types only; a null attribute means "none".
    unsafe { Attribute::from_option_raw(mlirMemRefTypeGetMemorySpace(memref.to_raw())) }
}

/// Whether a memref has the identity layout, i.e. its elements are dense and
/// in row-major order.
pub fn has_identity_layout(memref: Type<'_>) -> bool {
    // SAFETY: callers pass memref types only; the layout map belongs to the
    // type's context.
    unsafe { mlirAffineMapIsIdentity(mlirMemRefTypeGetAffineMap(memref.to_raw())) }
}

/// The layout of a memref type as strides and an offset, each `None` where
/// the type leaves it dynamic; `None` for a layout that is not strided.
pub fn strides_and_offset(memref: Type<'_>) -> Option<(Vec<Option<i64>>, Option<i64>)> {
    let rank = MemRefType::try_from(memref).ok()?.rank();
    let mut strides = vec![0i64; rank];
    let mut offset = 0i64;
    // SAFETY: a memref type of `rank` dimensions, and `strides` holds `rank`
    // entries, which the call writes along with `offset`.
    let result = unsafe {
        mlirMemRefTypeGetStridesAndOffset(memref.to_raw(), strides.as_mut_ptr(), &mut offset)
    };
    if result.value == 0 {
        return None;
    }
    // SAFETY: a plain query of MLIR's sentinel value.
    let dynamic = unsafe { mlirShapedTypeGetDynamicStrideOrOffset() };
    let known = |value: i64| (value != dynamic).then_some(value);
    Some((strides.into_iter().map(known).collect(), known(offset)))
}

/// The element type of a shaped (memref, tensor or vector) type.
pub fn element_type<'c>(shaped: Type<'c>) -> Type<'c> {
    // SAFETY: callers pass shaped types only.
    unsafe { Type::from_raw(mlirShapedTypeGetElementType(shaped.to_raw())) }
}

/// Why an element type has no size the runtime ABI can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementSizeError {
    /// No fixed size in memory (scalable vectors, pointers, memrefs, ...).
    Unsized,
    /// More bytes than an `i64` counts.
    TooLarge,
}

/// The number of bytes one element of `element` takes in memory, as MLIR's
/// LLVM lowering lays it out on a 64-bit host: integers and floats round up to
/// a power-of-two number of bytes (i1 takes one byte), `index` is 64 bits, and
/// a complex number is two of its parts. A fixed-size vector `vector<AxBxN x T>`
/// is an array `[A x [B x <N x T>]]`, whose innermost `<N x T>` takes its bits
/// rounded up to a power-of-two number of bytes. At most `i64::MAX`, the
/// largest size the ABI's `size_t` arrays and the lowered arithmetic hold.
pub fn element_size_in_bytes(element: Type<'_>) -> Result<u64, ElementSizeError> {
    let bytes = unbounded_element_size(element)?;
    if bytes > i64::MAX as u64 {
        return Err(ElementSizeError::TooLarge);
    }
    Ok(bytes)
}

fn unbounded_element_size(element: Type<'_>) -> Result<u64, ElementSizeError> {
    use ElementSizeError::{TooLarge, Unsized};
    let raw = element.to_raw();
    let bytes = |bits: u64| bits.div_ceil(8).checked_next_power_of_two().ok_or(TooLarge);
    // SAFETY: each accessor is called only after the matching type check.
    unsafe {
        if mlirTypeIsAComplex(raw) {
            let part = unbounded_element_size(Type::from_raw(mlirComplexTypeGetElementType(raw)))?;
            return part.checked_mul(2).ok_or(TooLarge);
        }
        if !mlirTypeIsAVector(raw) {
            return bytes(scalar_bits(element).ok_or(Unsized)?);
        }
        if mlirVectorTypeIsScalable(raw) {
            return Err(Unsized);
        }
        let rank = mlirShapedTypeGetRank(raw);
        let dims: Vec<u64> = (0..rank)
            .map(|dim| u64::try_from(mlirShapedTypeGetDimSize(raw, dim as isize)).ok())
            .collect::<Option<_>>()
            .ok_or(Unsized)?;
        let (innermost, outer) = dims.split_last().ok_or(Unsized)?;
        let lane_bits = scalar_bits(element_type(element)).ok_or(Unsized)?;
        let innermost = bytes(innermost.checked_mul(lane_bits).ok_or(TooLarge)?)?;
        outer
            .iter()
            .try_fold(innermost, |product, dim| product.checked_mul(*dim))
            .ok_or(TooLarge)
    }
}

/// The width of an integer, index or float type, in bits.
fn scalar_bits(scalar: Type<'_>) -> Option<u64> {
    let raw = scalar.to_raw();
    // SAFETY: each accessor is called only after the matching type check.
    unsafe {
        if mlirTypeIsAIndex(raw) {
            Some(64)
        } else if mlirTypeIsAInteger(raw) {
            Some(u64::from(mlirIntegerTypeGetWidth(raw)))
        } else if mlirTypeIsAFloat(raw) {
            Some(u64::from(mlirFloatTypeGetWidth(raw)))
        } else {
            None
        }
    }
}

/// Whether `attribute` is absent or the integer 0 (the default memory space).
pub fn is_default_memory_space(attribute: Option<Attribute<'_>>) -> bool {
    attribute.is_none_or(|attribute| {
        melior::ir::attribute::IntegerAttribute::try_from(attribute)
            .is_ok_and(|integer| integer.value() == 0)
    })
}

/// A string attribute holding `bytes`, typed as one.
pub fn string_attribute_typed<'c>(context: &'c Context, bytes: &[u8]) -> StringAttribute<'c> {
    StringAttribute::try_from(string_attribute(context, bytes))
        .expect("mlirStringAttrGet makes a string attribute")
}

/// The symbols a symbol reference names, outermost first (`@a::@b` is
/// `[a, b]`, a flat `@a` is `[a]`), or None for another attribute.
pub fn symbol_reference_path<'c>(attribute: Attribute<'c>) -> Option<Vec<&'c [u8]>> {
    let raw = attribute.to_raw();
    // SAFETY: the accessors are called on a symbol reference only; its strings
    // are owned by the context, which lives for 'c.
    unsafe {
        if !mlirAttributeIsASymbolRef(raw) {
            return None;
        }
        let mut path = vec![string_ref_bytes(mlirSymbolRefAttrGetRootReference(raw))];
        for index in 0..mlirSymbolRefAttrGetNumNestedReferences(raw) {
            let nested = mlirSymbolRefAttrGetNestedReference(raw, index);
            path.push(string_ref_bytes(mlirFlatSymbolRefAttrGetValue(nested)));
        }
        Some(path)
    }
}

/// The symbol a flat symbol reference (`@a`) names, or None for another
/// attribute.
pub fn flat_symbol_reference<'c>(attribute: Attribute<'c>) -> Option<&'c [u8]> {
    let raw = attribute.to_raw();
    // SAFETY: the value is read from a flat symbol reference only; its string
    // is owned by the context, which lives for 'c.
    unsafe {
        mlirAttributeIsAFlatSymbolRef(raw)
            .then(|| string_ref_bytes(mlirFlatSymbolRefAttrGetValue(raw)))
    }
}

/// The bytes of a string owned by an MLIR context.
///
/// # Safety
///
/// `string` points into storage that lives for 'c.
unsafe fn string_ref_bytes<'c>(string: mlir_sys::MlirStringRef) -> &'c [u8] {
    if string.length == 0 {
        &[]
    } else {
        // SAFETY: the caller guarantees the storage lives for 'c.
        unsafe { std::slice::from_raw_parts(string.data.cast(), string.length) }
    }
}
