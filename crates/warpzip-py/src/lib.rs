//! `warpzip._warpzip`, the extension module under the `warpzip` Python package
//! (`python/warpzip`): whole-buffer compression and decompression of `.wz` containers and gzip
//! files, the lossy `sz` codec over typed fields, compaction by a mask, ORC files read into
//! Arrow record batches handed over through the Arrow C stream interface, and copies between
//! host buffers and CUDA device pointers for DLPack and `__cuda_array_interface__` arrays.
//!
//! Every function takes its input through the buffer protocol (no copy), releases the GIL while
//! the library works, and turns every library error into a Python exception; a panic is caught
//! and raised as `WarpzipError`, never unwinding into the interpreter.

mod arrow_stream;
mod buffers;
mod device;
mod errors;
mod hdf5;

use buffers::{read_slice, write_slice};
use device::parse_device;
use errors::{guard, to_py};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use warpzip::api::{self, CompressOptions, OutputFormat, StreamConfig};
use warpzip::codec::{ErrorBound, LossyMode, LossyOptions};
use warpzip::format::{ElemType, Header};
use warpzip::{CodecId, Device};

/// Deflate chunks for a CPU reader, as `warpzip compress --for cpu` writes them.
const CPU_READER_DEFLATE_CHUNK: u32 = 4 << 20;

/// The element type named `name` (`u8` ... `f64`, `bytes`).
fn elem_type(name: &str) -> PyResult<ElemType> {
    ElemType::ALL
        .iter()
        .copied()
        .find(|e| e.name() == name)
        .ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "unknown dtype '{name}' (known: u8, u16, u32, u64, i8, i16, i32, i64, f32, f64)"
            ))
        })
}

fn codec_id(name: &str) -> PyResult<CodecId> {
    CodecId::from_name(name).map_err(to_py)
}

/// The lossy options from the Python arguments, `None` when no bound is given.
fn lossy_options(
    eb: Option<&str>,
    dims: Option<Vec<u64>>,
    fill: Vec<f64>,
    mode: &str,
) -> PyResult<Option<LossyOptions>> {
    let Some(eb) = eb else {
        return Ok(None);
    };
    Ok(Some(LossyOptions {
        bound: ErrorBound::parse(eb).map_err(to_py)?,
        dims: dims.unwrap_or_default(),
        fill,
        mode: LossyMode::parse(mode).map_err(to_py)?,
    }))
}

/// Compresses a buffer as `warpzip compress` does with the same options: a `.wz` file (one
/// container or a stream of frames), or a gzip or BGZF file with `format`.
#[pyfunction]
#[pyo3(signature = (data, codec="deflate", level=None, chunk_size=None, dtype=None, format="wz",
    device="auto", reader="auto", eb=None, dims=None, fill=Vec::new(), mode="ratio"))]
#[allow(clippy::too_many_arguments)]
fn compress<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    codec: &str,
    level: Option<i32>,
    chunk_size: Option<u32>,
    dtype: Option<&str>,
    format: &str,
    device: &str,
    reader: &str,
    eb: Option<&str>,
    dims: Option<Vec<u64>>,
    fill: Vec<f64>,
    mode: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let format = match format {
        "wz" => OutputFormat::Wz,
        "gzip" | "gz" => OutputFormat::Gzip,
        "bgzf" => OutputFormat::Bgzf,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown format '{other}' (known: wz, gzip, bgzf)"
            )))
        }
    };
    let codec = codec_id(codec)?;
    if format != OutputFormat::Wz && codec != CodecId::Deflate {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "format gzip and bgzf write Deflate; codec {codec} does not apply"
        )));
    }
    let for_cpu = match reader {
        "cpu" => Some(true),
        "gpu" => Some(false),
        "auto" => None,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown reader '{other}' (known: auto, cpu, gpu)"
            )))
        }
    };
    let mut opts = CompressOptions {
        codec,
        level,
        chunk_size,
        elem_type: dtype.map(elem_type).transpose()?,
        lossy: lossy_options(eb, dims, fill, mode)?,
    };
    let device = parse_device(py, device)?;
    if opts.chunk_size.is_none()
        && codec == CodecId::Deflate
        && format != OutputFormat::Bgzf
        && for_cpu.unwrap_or(!device.is_gpu())
    {
        opts.chunk_size = Some(CPU_READER_DEFLATE_CHUNK);
    }
    let view = read_slice(data)?;
    let input = view.as_slice();
    let out = py.detach(|| {
        guard(|| {
            if codec == CodecId::Sz {
                return api::compress(input, &opts, &device);
            }
            let cfg = StreamConfig {
                batch_size: None,
                size_hint: Some(input.len() as u64),
                format,
            };
            let mut out = Vec::new();
            api::compress_stream_with(input, &mut out, &opts, &device, &cfg)?;
            Ok(out)
        })
    })?;
    Ok(PyBytes::new(py, &out))
}

/// Decompresses a `.wz` file or a gzip file (recognised by its first bytes) into new bytes.
#[pyfunction]
#[pyo3(signature = (data, device="auto"))]
fn decompress<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    device: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let device = parse_device(py, device)?;
    let view = read_slice(data)?;
    let input = view.as_slice();
    let out = py.detach(|| guard(|| Ok(api::decompress_any(input, &device)?.data)))?;
    Ok(PyBytes::new(py, &out))
}

/// Decompresses into a writable buffer of exactly the uncompressed size; a one-container `.wz`
/// file is decoded in place, anything else decoded and copied. Returns the bytes written.
#[pyfunction]
#[pyo3(signature = (data, out, device="auto"))]
fn decompress_into(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    out: &Bound<'_, PyAny>,
    device: &str,
) -> PyResult<usize> {
    let device = parse_device(py, device)?;
    let view = read_slice(data)?;
    let input = view.as_slice();
    let mut target = write_slice(out)?;
    let dst = target.as_mut_slice();
    py.detach(|| {
        guard(|| {
            if api::InputFormat::detect(input) == Some(api::InputFormat::Wz) {
                let frames = warpzip::format::parse_stream(input)?;
                if let [only] = frames.as_slice() {
                    api::decompress_container_into(only, dst, &device)?;
                    return Ok(dst.len());
                }
            }
            let data = api::decompress_any(input, &device)?.data;
            if data.len() != dst.len() {
                return Err(warpzip::Error::InvalidArgument(format!(
                    "output buffer holds {} bytes but the input decompresses to {}",
                    dst.len(),
                    data.len()
                )));
            }
            dst.copy_from_slice(&data);
            Ok(dst.len())
        })
    })
}

/// What a `.wz` file's header says: codec, dtype, shape, sizes, chunks, frames and the codec's
/// parameters in words.
#[pyfunction]
fn info<'py>(py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let view = read_slice(data)?;
    let input = view.as_slice();
    let (inspection, params) = py.detach(|| {
        guard(|| {
            let i = api::inspect(input)?;
            let params = warpzip::codec::codec(i.header.codec)
                .ok()
                .and_then(|c| c.describe_params(&i.header.codec_params, i.header.elem_type));
            Ok((i, params))
        })
    })?;
    let h = &inspection.header;
    let d = PyDict::new(py);
    d.set_item("codec", h.codec.name())?;
    d.set_item("dtype", h.elem_type.name())?;
    d.set_item("shape", h.shape.clone())?;
    d.set_item("total_len", h.total_len)?;
    d.set_item("chunk_size", h.chunk_size)?;
    d.set_item("chunks", inspection.chunk_count())?;
    d.set_item("frames", inspection.frames)?;
    d.set_item("container_len", inspection.container_len)?;
    d.set_item("params", params)?;
    d.set_item(
        "verified",
        matches!(inspection.verification, api::Verification::Ok),
    )?;
    Ok(d)
}

/// Compresses a typed field with the lossy `sz` codec into one `.wz` container whose header
/// records the field's dtype and shape (at most four dimensions) and whose parameters record
/// the bound: the container describes itself.
#[pyfunction]
#[pyo3(signature = (data, dtype, shape, eb, fill=Vec::new(), mode="ratio", device="auto"))]
#[allow(clippy::too_many_arguments)]
fn lossy_compress<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    dtype: &str,
    shape: Vec<u64>,
    eb: &str,
    fill: Vec<f64>,
    mode: &str,
    device: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let elem = elem_type(dtype)?;
    if shape.len() > 4 {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "a lossy field has at most 4 dimensions; this one has {}",
            shape.len()
        )));
    }
    let dims = if shape.len() > 1 {
        shape.clone()
    } else {
        Vec::new()
    };
    let opts = CompressOptions {
        codec: CodecId::Sz,
        level: None,
        chunk_size: None,
        elem_type: Some(elem),
        lossy: lossy_options(Some(eb), Some(dims), fill, mode)?,
    };
    let device = parse_device(py, device)?;
    let view = read_slice(data)?;
    let input = view.as_slice();
    let out = py.detach(|| {
        guard(|| {
            let codec = warpzip::codec::codec(CodecId::Sz)?;
            let chunk_size = codec.check_options(&opts)?;
            let expected = shape.iter().product::<u64>().saturating_mul(elem.size());
            if input.len() as u64 != expected {
                return Err(warpzip::Error::InvalidArgument(format!(
                    "{} bytes are not a field of shape {shape:?} of {elem}",
                    input.len()
                )));
            }
            let encoded = codec.compress(input, &opts, chunk_size, &device)?;
            let header = Header {
                codec: CodecId::Sz,
                codec_params: encoded.codec_params.clone(),
                elem_type: elem,
                shape: if shape.len() > 1 { shape } else { Vec::new() },
                total_len: input.len() as u64,
                chunk_size: encoded.chunk_size,
            };
            let mut out = Vec::new();
            warpzip::format::write_container(&mut out, &header, &encoded.payload, &encoded.spans)?;
            Ok(out)
        })
    })?;
    Ok(PyBytes::new(py, &out))
}

/// Keeps the values whose mask entry is set (compressstore), in order. `mask_kind` is `flags`
/// (a byte a value, nonzero keeps) or `bits` (packed, least significant bit first).
#[pyfunction]
#[pyo3(signature = (values, dtype, mask, mask_kind="flags", device="auto"))]
fn select<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    dtype: &str,
    mask: &Bound<'py, PyAny>,
    mask_kind: &str,
    device: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    use warpzip::ops::compact::{self, values_from_le_bytes, values_to_le_bytes, Mask};
    fn run<T: compact::CompactElem>(
        data: &[u8],
        mask: Mask<'_>,
        device: &Device,
    ) -> warpzip::Result<Vec<u8>> {
        let values: Vec<T> = values_from_le_bytes(data)?;
        mask.check(values.len())?;
        Ok(values_to_le_bytes(&compact::select_masked(
            &values, mask, device,
        )?))
    }
    let device = parse_device(py, device)?;
    let view = read_slice(values)?;
    let mask_view = read_slice(mask)?;
    let (data, mask_bytes) = (view.as_slice(), mask_view.as_slice());
    let mask = match mask_kind {
        "flags" => Mask::Flags(mask_bytes),
        "bits" => Mask::Bits(mask_bytes),
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown mask kind '{other}' (known: flags, bits)"
            )))
        }
    };
    let width = match dtype {
        "u8" | "i8" | "bool" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" => 4,
        "u64" | "i64" => 8,
        "f32" => 32,
        "f64" => 64,
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "select does not take dtype '{other}'"
            )))
        }
    };
    let out = py.detach(|| {
        guard(|| match width {
            1 => run::<u8>(data, mask, &device),
            2 => run::<u16>(data, mask, &device),
            4 => run::<u32>(data, mask, &device),
            8 => run::<u64>(data, mask, &device),
            32 => run::<f32>(data, mask, &device),
            _ => run::<f64>(data, mask, &device),
        })
    })?;
    Ok(PyBytes::new(py, &out))
}

/// The codec names this build knows, in id order.
#[pyfunction]
fn codecs() -> Vec<&'static str> {
    CodecId::ALL.iter().map(|c| c.name()).collect()
}

/// Each codec's name and the id its containers' headers (and the HDF5 filter's client data)
/// store.
#[pyfunction]
fn codec_ids() -> Vec<(&'static str, u16)> {
    CodecId::ALL
        .iter()
        .map(|c| (c.name(), c.to_u16()))
        .collect()
}

/// Each element type's name and the id the header stores.
#[pyfunction]
fn dtype_ids() -> Vec<(&'static str, u8)> {
    ElemType::ALL
        .iter()
        .map(|e| (e.name(), e.to_u8()))
        .collect()
}

#[pymodule]
fn _warpzip(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compress, m)?)?;
    m.add_function(wrap_pyfunction!(decompress, m)?)?;
    m.add_function(wrap_pyfunction!(decompress_into, m)?)?;
    m.add_function(wrap_pyfunction!(info, m)?)?;
    m.add_function(wrap_pyfunction!(lossy_compress, m)?)?;
    m.add_function(wrap_pyfunction!(select, m)?)?;
    m.add_function(wrap_pyfunction!(codecs, m)?)?;
    m.add_function(wrap_pyfunction!(codec_ids, m)?)?;
    m.add_function(wrap_pyfunction!(dtype_ids, m)?)?;
    m.add("HDF5_FILTER_ID", hdf5::FILTER_ID)?;
    device::register(m)?;
    errors::register(m)?;
    arrow_stream::register(m)?;
    Ok(())
}
