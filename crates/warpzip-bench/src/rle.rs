//! rle benchmark: device-side encode and decode (CUDA events, median), end to end from host
//! memory, and the CPU codec per core; every GPU result is checked against the CPU codec.

use super::{gbps, inputs, wall_ms, BenchOptions, BenchRow, Ceilings};
use warpzip::codec::rle::pipeline::{HostMemory, RlePipeline};
use warpzip::codec::rle::{chunked, format as rle_format, gpu as rle_gpu};
use warpzip::codec::CodecId;
use warpzip::error::{Error, Result};
use warpzip::format::{write_container, ChunkSpan, Container, ElemType, Header};
use warpzip::gpu::{median, GpuContext};

const CHUNK: usize = rle_format::DEFAULT_CHUNK_SIZE as usize;

fn named_inputs(opts: &BenchOptions, default_size: usize) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    if opts.files.is_empty() {
        let n = opts.size.unwrap_or(default_size);
        out.push(("runs (mean ~24 B)".to_string(), inputs::runs(n)));
        out.push(("long runs".to_string(), inputs::long_runs(n)));
        out.push(("noise".to_string(), inputs::noise(n)));
    } else {
        for path in &opts.files {
            let data = std::fs::read(path)?;
            let data = match opts.size {
                Some(n) if n > data.len() => inputs::tiled(&data, n),
                _ => data,
            };
            let name = path
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            out.push((name, data));
        }
    }
    Ok(out)
}

fn container(data_len: usize, payload: &[u8], spans: &[ChunkSpan]) -> Result<Vec<u8>> {
    let header = Header {
        codec: CodecId::Rle,
        codec_params: rle_format::codec_params(),
        elem_type: ElemType::Bytes,
        shape: Vec::new(),
        total_len: data_len as u64,
        chunk_size: CHUNK as u32,
    };
    let mut file = Vec::with_capacity(payload.len() + 64 + 24 * spans.len());
    write_container(&mut file, &header, payload, spans)?;
    Ok(file)
}

fn contiguous(payload: &[u8], spans: &[ChunkSpan]) -> Vec<u8> {
    let mut v = Vec::with_capacity(payload.len());
    for s in spans {
        v.extend_from_slice(&payload[s.offset..s.offset + s.compressed_len as usize]);
    }
    v
}

pub(super) fn bench_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let dev = gpu.name().to_string();
    for (name, data) in named_inputs(opts, 1 << 30)? {
        let n = data.len();
        if n == 0 {
            continue;
        }
        let (cpu_payload, cpu_spans) = chunked::compress(&data, CHUNK)?;
        let comp = cpu_payload.len();
        let ratio = n as f64 / comp as f64;

        // Device-side encode.
        let d_in = gpu.upload(&data)?;
        let geometry = rle_gpu::Geometry::new(n as u64, CHUNK)?;
        let mut enc = rle_gpu::EncodeBuffers::new(gpu, geometry)?;
        let times = gpu.time_ms(3, opts.runs(), || {
            rle_gpu::encode_on_device(gpu, &d_in, &mut enc)
        })?;
        let enc_ms = median(&times);
        let (spans, total) = rle_gpu::encoded_spans(gpu, &enc)?;
        let gpu_payload = gpu.download(&enc.out.slice(0..total))?;
        if contiguous(&gpu_payload, &spans) != contiguous(&cpu_payload, &cpu_spans) {
            return Err(Error::Driver(format!(
                "rle bench: GPU encoding of {name} differs from the CPU"
            )));
        }
        drop(enc);
        drop(d_in);
        rows.push(BenchRow {
            what: "rle encode".into(),
            input: name.clone(),
            device: dev.clone(),
            bytes: n as u64,
            ratio: Some(ratio),
            ms: enc_ms,
            gbps: gbps(n as f64, enc_ms),
            roofline: Some(gbps((n + comp) as f64, enc_ms) / ceilings.d2d_gbps),
            note: "device-resident; bytes equal CPU".into(),
        });

        // Device-side decode.
        let file = container(n, &cpu_payload, &cpu_spans)?;
        let parsed = Container::parse(&file)?;
        let mut dec = rle_gpu::DecodeBuffers::from_container(gpu, &parsed)?;
        let times = gpu.time_ms(3, opts.runs(), || rle_gpu::decode_on_device(gpu, &mut dec))?;
        let dec_ms = median(&times);
        rle_gpu::check_status(gpu, &dec)?;
        if gpu.download(&dec.out)?[..n] != data[..] {
            return Err(Error::Driver(format!(
                "rle bench: GPU decode of {name} differs from the input"
            )));
        }
        rows.push(BenchRow {
            what: "rle decode".into(),
            input: name.clone(),
            device: dev.clone(),
            bytes: n as u64,
            ratio: Some(ratio),
            ms: dec_ms,
            gbps: gbps(n as f64, dec_ms),
            roofline: Some(gbps((n + comp) as f64, dec_ms) / ceilings.d2d_gbps),
            note: "device-resident; bytes equal input".into(),
        });
        drop(dec);

        // End to end from host memory: pinned buffers (what a pipeline that reads into pinned
        // memory gets) and plain pageable ones (the library's default call).
        let e2e_runs = 5;
        let pipeline = RlePipeline::new(gpu)?;
        let mut pin_in = gpu.alloc_pinned(n)?;
        let mut pin_out = gpu.alloc_pinned(geometry.max_payload().max(n))?;
        pin_in.as_mut_slice()?.copy_from_slice(&data);
        let mut pinned_layout = (Vec::new(), 0usize);
        let c_pinned = wall_ms(e2e_runs, || {
            let out = pin_out.as_mut_slice()?;
            pinned_layout =
                pipeline.compress_into(gpu, pin_in.as_slice()?, CHUNK, out, HostMemory::Pinned)?;
            Ok(())
        })?;
        let pinned_bytes = &pin_out.as_slice()?[..pinned_layout.1];
        if contiguous(pinned_bytes, &pinned_layout.0) != contiguous(&cpu_payload, &cpu_spans) {
            return Err(Error::Driver(format!(
                "rle bench: pipelined encoding of {name} differs from the CPU"
            )));
        }
        // The compressed file in pinned memory too, as a reader into pinned buffers has it.
        let mut pin_file = gpu.alloc_pinned(file.len())?;
        pin_file.as_mut_slice()?.copy_from_slice(&file);
        let pinned_container = Container::parse(pin_file.as_slice()?)?;
        let d_pinned = wall_ms(e2e_runs, || {
            let out = &mut pin_out.as_mut_slice()?[..n];
            pipeline.decompress_into(gpu, &pinned_container, out, HostMemory::Pinned)
        })?;
        if pin_out.as_slice()?[..n] != data[..] {
            return Err(Error::Driver(format!(
                "rle bench: pipelined decode of {name} differs"
            )));
        }
        let c_ms = wall_ms(e2e_runs, || {
            rle_gpu::compress(gpu, &data, CHUNK).map(|_| ())
        })?;
        let mut out = vec![0u8; n];
        let d_ms = wall_ms(e2e_runs, || {
            rle_gpu::decompress_into(gpu, &parsed, &mut out)
        })?;
        for (what, ms, ceiling, ceiling_name) in [
            (
                "rle compress e2e pinned",
                c_pinned,
                ceilings.h2d_gbps,
                "h2d",
            ),
            (
                "rle decompress e2e pinned",
                d_pinned,
                ceilings.d2h_gbps,
                "d2h",
            ),
            ("rle compress e2e pageable", c_ms, ceilings.h2d_gbps, "h2d"),
            (
                "rle decompress e2e pageable",
                d_ms,
                ceilings.d2h_gbps,
                "d2h",
            ),
        ] {
            let g = gbps(n as f64, ms);
            rows.push(BenchRow {
                what: what.into(),
                input: name.clone(),
                device: dev.clone(),
                bytes: n as u64,
                ratio: Some(ratio),
                ms,
                gbps: g,
                roofline: Some(g / ceiling),
                note: format!("host to host; roofline = pinned {ceiling_name} {ceiling:.1} GB/s"),
            });
        }
    }
    Ok(())
}

pub(super) fn bench_cpu(opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
    for (name, data) in named_inputs(opts, 64 << 20)? {
        let n = data.len();
        if n == 0 {
            continue;
        }
        let runs = opts.runs().min(10);
        let (payload, spans) = chunked::compress(&data, CHUNK)?;
        let ratio = n as f64 / payload.len() as f64;
        let enc_ms =
            pool.install(|| wall_ms(runs, || chunked::compress(&data, CHUNK).map(|_| ())))?;
        let chunks: Vec<(&[u8], usize)> = spans
            .iter()
            .map(|s| {
                (
                    &payload[s.offset..s.offset + s.compressed_len as usize],
                    s.uncompressed_len as usize,
                )
            })
            .collect();
        let mut out = vec![0u8; n];
        let dec_ms =
            pool.install(|| wall_ms(runs, || chunked::decompress_into(&chunks, &mut out)))?;
        if out != data {
            return Err(Error::Driver(format!(
                "rle bench: CPU round trip of {name} failed"
            )));
        }
        for (what, ms) in [
            ("rle encode (1 core)", enc_ms),
            ("rle decode (1 core)", dec_ms),
        ] {
            rows.push(BenchRow {
                what: what.into(),
                input: name.clone(),
                device: "cpu".into(),
                bytes: n as u64,
                ratio: Some(ratio),
                ms,
                gbps: gbps(n as f64, ms),
                roofline: None,
                note: "one thread".into(),
            });
        }
    }
    Ok(())
}
