//! ORC files read into Arrow record batches, handed to Python through the Arrow PyCapsule
//! interface (`__arrow_c_stream__`, `__arrow_c_schema__`): pyarrow, polars and duckdb import
//! them without warpzip depending on any of them.

use crate::device::parse_device;
use crate::errors::{guard, panic_message, to_py, WarpzipError};
use arrow_array::ffi::FFI_ArrowSchema;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Mutex;
use warpzip::orc::OrcFile;

/// Why a batch did not come.
enum Failure {
    Library(warpzip::Error),
    Panic(String),
}

impl Failure {
    fn into_py(self) -> PyErr {
        match self {
            Failure::Library(e) => to_py(e),
            Failure::Panic(m) => WarpzipError::new_err(format!("internal error: {m}")),
        }
    }
}

type Item = Result<RecordBatch, Failure>;

/// A table: a schema and its record batches, decoded.
#[pyclass(module = "warpzip._warpzip", frozen)]
pub struct ArrowTable {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

fn stream_capsule<'py>(
    py: Python<'py>,
    reader: Box<dyn RecordBatchReader + Send>,
) -> PyResult<Bound<'py, PyCapsule>> {
    let stream = FFI_ArrowArrayStream::new(reader);
    let name =
        CString::new("arrow_array_stream").map_err(|e| WarpzipError::new_err(e.to_string()))?;
    // The consumer moves the stream out of the capsule (and clears its `release`); a stream
    // left in it is released when the capsule is freed.
    PyCapsule::new(py, stream, Some(name))
}

fn schema_capsule<'py>(py: Python<'py>, schema: &SchemaRef) -> PyResult<Bound<'py, PyCapsule>> {
    let ffi = FFI_ArrowSchema::try_from(schema.as_ref())
        .map_err(|e| WarpzipError::new_err(e.to_string()))?;
    let name = CString::new("arrow_schema").map_err(|e| WarpzipError::new_err(e.to_string()))?;
    PyCapsule::new(py, ffi, Some(name))
}

#[pymethods]
impl ArrowTable {
    /// The Arrow C stream of the table's batches (the schema asked for is not applied: the
    /// table's own is given, as the interface allows).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok::<_, ArrowError>),
            self.schema.clone(),
        );
        stream_capsule(py, Box::new(reader))
    }

    /// The Arrow C schema of the table.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        schema_capsule(py, &self.schema)
    }

    /// Rows in the table.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The columns' names, in order.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// The number of record batches.
    #[getter]
    fn num_batches(&self) -> usize {
        self.batches.len()
    }

    fn __len__(&self) -> usize {
        self.num_rows()
    }

    fn __repr__(&self) -> String {
        let cols: Vec<String> = self
            .schema
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        format!(
            "warpzip.ArrowTable({} rows; {})",
            self.num_rows(),
            cols.join(", ")
        )
    }
}

/// Record batches decoded one at a time by a worker thread, one batch ahead of the reader.
struct ChannelReader {
    schema: SchemaRef,
    first: Option<RecordBatch>,
    rx: Receiver<Item>,
}

impl Iterator for ChannelReader {
    type Item = Result<RecordBatch, Failure>;
    fn next(&mut self) -> Option<Self::Item> {
        if let Some(b) = self.first.take() {
            return Some(Ok(b));
        }
        self.rx.recv().ok()
    }
}

/// `ChannelReader` as Arrow's reader, its failures as Arrow errors.
struct ArrowReader(ChannelReader);

impl Iterator for ArrowReader {
    type Item = Result<RecordBatch, ArrowError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|r| {
            r.map_err(|f| match f {
                Failure::Library(e) => ArrowError::ExternalError(Box::new(e)),
                Failure::Panic(m) => ArrowError::ComputeError(format!("internal error: {m}")),
            })
        })
    }
}

impl RecordBatchReader for ArrowReader {
    fn schema(&self) -> SchemaRef {
        self.0.schema.clone()
    }
}

/// An iterator over an ORC file's record batches (`orc.read_batches`), each an `ArrowTable`
/// of one batch; or, through `__arrow_c_stream__`, one Arrow stream of the batches not yet read.
#[pyclass(module = "warpzip._warpzip")]
pub struct BatchReader {
    inner: Mutex<Option<ChannelReader>>,
}

#[pymethods]
impl BatchReader {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<ArrowTable>> {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let Some(reader) = guard.as_mut() else {
            return Ok(None);
        };
        let schema = reader.schema.clone();
        match py.detach(|| reader.next()) {
            None => {
                *guard = None;
                Ok(None)
            }
            Some(Ok(batch)) => Ok(Some(ArrowTable {
                schema,
                batches: vec![batch],
            })),
            Some(Err(f)) => {
                *guard = None;
                Err(f.into_py())
            }
        }
    }

    /// The Arrow C stream of the batches not yet read; the reader is used up.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = self
            .inner
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or_else(|| WarpzipError::new_err("the batch reader is used up"))?;
        stream_capsule(py, Box::new(ArrowReader(reader)))
    }
}

/// Starts a worker that decodes the file's batches, and waits for the first one (which gives
/// the schema, and any error in opening the file or naming the columns).
fn start(
    path: PathBuf,
    columns: Option<Vec<String>>,
    device: warpzip::Device,
    max_rows: Option<u64>,
) -> PyResult<ChannelReader> {
    let (tx, rx) = sync_channel::<Item>(1);
    std::thread::spawn(move || {
        let work = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let file = match OrcFile::open(&path) {
                Ok(f) => f,
                Err(e) => {
                    let _ = tx.send(Err(Failure::Library(e)));
                    return;
                }
            };
            let names: Option<Vec<&str>> = columns
                .as_ref()
                .map(|c| c.iter().map(String::as_str).collect());
            let batches: Box<dyn Iterator<Item = warpzip::Result<RecordBatch>>> = match max_rows {
                None => Box::new(std::iter::once(file.read_batch(names.as_deref(), &device))),
                Some(rows) => match file.read_batches(names.as_deref(), &device, rows) {
                    Ok(it) => it,
                    Err(e) => {
                        let _ = tx.send(Err(Failure::Library(e)));
                        return;
                    }
                },
            };
            for b in batches {
                let stop = b.is_err();
                if tx.send(b.map_err(Failure::Library)).is_err() || stop {
                    return;
                }
            }
        }));
        if let Err(payload) = work {
            let _ = tx.send(Err(Failure::Panic(panic_message(payload.as_ref()))));
        }
    });
    match rx.recv() {
        Ok(Ok(first)) => Ok(ChannelReader {
            schema: first.schema(),
            first: Some(first),
            rx,
        }),
        Ok(Err(f)) => Err(f.into_py()),
        Err(_) => Err(WarpzipError::new_err(
            "the ORC reader stopped without a batch or an error",
        )),
    }
}

/// Reads the named columns (all for `None`) of an ORC file into one table.
#[pyfunction]
#[pyo3(signature = (path, columns=None, device="auto"))]
fn orc_read_table(
    py: Python<'_>,
    path: PathBuf,
    columns: Option<Vec<String>>,
    device: &str,
) -> PyResult<ArrowTable> {
    let device = parse_device(py, device)?;
    let mut reader = py.detach(|| start(path, columns, device, None))?;
    let schema = reader.schema.clone();
    let batches = py.detach(|| guard_items(&mut reader))?;
    Ok(ArrowTable { schema, batches })
}

/// Every remaining batch of `reader`, or the first failure.
fn guard_items(reader: &mut ChannelReader) -> PyResult<Vec<RecordBatch>> {
    let mut out = Vec::new();
    for item in reader {
        out.push(item.map_err(Failure::into_py)?);
    }
    Ok(out)
}

/// Reads an ORC file in record batches of whole stripes, at most `batch_rows` rows each (a
/// larger stripe is a batch of its own), decoded as they are asked for.
#[pyfunction]
#[pyo3(signature = (path, columns=None, batch_rows=65536, device="auto"))]
fn orc_read_batches(
    py: Python<'_>,
    path: PathBuf,
    columns: Option<Vec<String>>,
    batch_rows: u64,
    device: &str,
) -> PyResult<BatchReader> {
    let device = parse_device(py, device)?;
    let reader = py.detach(|| start(path, columns, device, Some(batch_rows.max(1))))?;
    Ok(BatchReader {
        inner: Mutex::new(Some(reader)),
    })
}

/// The column names and types of an ORC file, read from its footer.
#[pyfunction]
fn orc_schema(py: Python<'_>, path: PathBuf) -> PyResult<Vec<(String, String)>> {
    py.detach(|| {
        guard(|| {
            let file = OrcFile::open(&path)?;
            Ok(file
                .columns()
                .iter()
                .map(|c| (c.name.clone(), c.type_name.clone()))
                .collect())
        })
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ArrowTable>()?;
    m.add_class::<BatchReader>()?;
    m.add_function(wrap_pyfunction!(orc_read_table, m)?)?;
    m.add_function(wrap_pyfunction!(orc_read_batches, m)?)?;
    m.add_function(wrap_pyfunction!(orc_schema, m)?)?;
    Ok(())
}
