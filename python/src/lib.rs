//! The Python module `gpucosim` (type stubs: `python/gpucosim.pyi`):
//!
//! - `Model(unit, profile)`: a unit's reference model. `step(inputs)` is one
//!   clock cycle (the outputs of the cycle for those inputs, then the rising
//!   edge), `peek(inputs)` the outputs without the edge; ports by name,
//!   values as Python ints (an array port is one int, element 0 in the least
//!   significant bits, as a simulator shows the packed port). Inputs not
//!   given keep their last value (all 0 at first: `rst_ni` 0 is reset).
//!   `eval(request)` answers `gpucosim eval` requests; `ports` describes the
//!   port table; `coverage()` and `in_flight()` report.
//! - `Stimulus(unit, profile, seed, knobs)`: gpucosim's legal random
//!   stimulus, the inputs of one cycle per `next()`.

use gpucosim_dpi as dpi;
use gpucosim_model::ports::{Dir, PortDef, PortTable};
use pyo3::exceptions::{PyKeyError, PyStopIteration, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyString};

/// One port of a unit's top module.
#[pyclass(module = "gpucosim", frozen, get_all)]
#[derive(Clone)]
struct Port {
    /// SystemVerilog name (`req_valid_i`).
    name: &'static str,
    /// `"in"` or `"out"`.
    direction: &'static str,
    /// Width in bits.
    width: u32,
    /// Elements of an array port (1 for a scalar or vector).
    elems: u32,
    /// Width of one element.
    elem_width: u32,
}

#[pymethods]
impl Port {
    fn __repr__(&self) -> String {
        format!(
            "Port(name={:?}, direction={:?}, width={}, elems={}, elem_width={})",
            self.name, self.direction, self.width, self.elems, self.elem_width
        )
    }
}

fn ports(t: &PortTable) -> Vec<Port> {
    t.ports
        .iter()
        .map(|p: &PortDef| Port {
            name: p.name,
            direction: if p.dir == Dir::In { "in" } else { "out" },
            width: p.width(),
            elems: p.elems,
            elem_width: p.elem_width,
        })
        .collect()
}

/// The words of port `p` (`offset`, `words`) from a Python int.
fn set_port(
    buf: &mut [u32],
    name: &str,
    offset: usize,
    width: u32,
    v: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let int = v.downcast::<PyInt>().map_err(|_| {
        PyTypeError::new_err(format!(
            "input {name}: expected an int, got {}",
            v.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let words = width.div_ceil(32) as usize;
    let dst = &mut buf[offset..offset + words];
    let too_big = || {
        PyValueError::new_err(format!(
            "input {name}: {} does not fit in {width} unsigned bits",
            clip(&v.to_string())
        ))
    };
    if width <= 64 {
        let x: u64 = int.extract().map_err(|_| too_big())?;
        if width < 64 && x >> width != 0 {
            return Err(too_big());
        }
        dst[0] = x as u32;
        if words > 1 {
            dst[1] = (x >> 32) as u32;
        }
        return Ok(());
    }
    if int.lt(0)? || int.call_method0("bit_length")?.extract::<u32>()? > width {
        return Err(too_big());
    }
    let bytes = int.call_method1("to_bytes", (4 * words, "little"))?;
    let bytes = bytes.downcast::<PyBytes>()?.as_bytes();
    for (w, c) in dst.iter_mut().zip(bytes.chunks_exact(4)) {
        *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
    }
    Ok(())
}

/// A Python int from the words of a port.
fn get_port<'py>(py: Python<'py>, words: &[u32]) -> PyResult<Bound<'py, PyAny>> {
    match words.len() {
        1 => Ok(words[0].into_pyobject(py)?.into_any()),
        2 => Ok((u64::from(words[0]) | u64::from(words[1]) << 32)
            .into_pyobject(py)?
            .into_any()),
        _ => {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            py.get_type::<PyInt>()
                .call_method1("from_bytes", (PyBytes::new(py, &bytes), "little"))
        }
    }
}

fn clip(s: &str) -> String {
    gpucosim_tb::units::clip(&format!("`{s}`"))
        .trim_matches('`')
        .to_string()
}

/// Applies `inputs` (a dict of port name → int) to the held input words.
fn apply(t: &PortTable, held: &mut [u32], inputs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    let Some(inputs) = inputs else {
        return Ok(());
    };
    for (k, v) in inputs.iter() {
        let k = k.downcast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "input names are strings, got {}",
                clip(&k.to_string())
            ))
        })?;
        let name = k.to_cow()?;
        let name: &str = &name;
        match t.find(name) {
            Some((def, port)) if def.dir == Dir::In => {
                set_port(held, name, port.offset, port.width, &v)?
            }
            Some(_) => {
                return Err(PyKeyError::new_err(format!(
                    "{name} is an output of {}",
                    t.top
                )))
            }
            None => {
                return Err(PyKeyError::new_err(format!(
                    "{} has no input {} (inputs: {})",
                    t.top,
                    clip(name),
                    t.of(Dir::In)
                        .map(|(d, _)| d.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    }
    Ok(())
}

/// Every port of direction `dir` from `words` into a dict.
fn to_dict<'py>(
    py: Python<'py>,
    t: &PortTable,
    dir: Dir,
    words: &[u32],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (def, port) in t.of(dir) {
        d.set_item(def.name, get_port(py, port.slice(words))?)?;
    }
    Ok(d)
}

/// A unit's reference model for one profile.
#[pyclass(module = "gpucosim", unsendable)]
struct Model {
    inner: dpi::Model,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
}

#[pymethods]
impl Model {
    #[new]
    fn new(unit: &str, profile: &str) -> PyResult<Self> {
        let inner = dpi::Model::new(unit, profile).map_err(PyValueError::new_err)?;
        let t = inner.table();
        Ok(Model {
            inputs: vec![0; t.in_words()],
            outputs: vec![0; t.out_words()],
            inner,
        })
    }

    /// The unit (`ta`, `lds`, `waitcnt`).
    #[getter]
    fn unit(&self) -> &'static str {
        self.inner.unit()
    }

    /// The profile (`gfx9`, `gfx11`).
    #[getter]
    fn profile(&self) -> &'static str {
        self.inner.profile().name()
    }

    /// The top module's name (`ta_top`).
    #[getter]
    fn top(&self) -> &'static str {
        self.inner.table().top
    }

    /// The ports, `rst_ni` first (`clk_i` is not one: `step` is a cycle).
    #[getter]
    fn ports(&self) -> Vec<Port> {
        ports(self.inner.table())
    }

    /// One clock cycle: the outputs of the cycle for the inputs (those given
    /// here, the others as last given), then the rising edge.
    #[pyo3(signature = (inputs = None))]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        inputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.outputs_for(py, inputs, true)
    }

    /// The outputs of the current cycle for the inputs, without the edge
    /// (the inputs are kept, as by `step`).
    #[pyo3(signature = (inputs = None))]
    fn peek<'py>(
        &mut self,
        py: Python<'py>,
        inputs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.outputs_for(py, inputs, false)
    }

    /// The inputs held, as the next `step` applies them.
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        to_dict(py, self.inner.table(), Dir::In, &self.inputs)
    }

    /// Back to a new model: reset state, every input 0, coverage cleared.
    fn reset(&mut self) {
        self.inner.reset();
        self.inputs.fill(0);
        self.outputs.fill(0);
    }

    /// `gpucosim eval`: a request (dict), a list of requests or a JSON
    /// string of either, answered as `gpucosim eval --unit U --profile P`
    /// answers that input (a list shares state, e.g. the LDS memory; each
    /// call starts afresh). Returns the result(s) as Python objects.
    fn eval<'py>(
        &self,
        py: Python<'py>,
        request: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let json = py.import("json")?;
        let text: String = if let Ok(s) = request.downcast::<PyString>() {
            s.to_cow()?.into_owned()
        } else {
            json.call_method1("dumps", (request,))?.extract()?
        };
        let value = gpucosim_tb::json::from_str(&text).map_err(|e| {
            PyValueError::new_err(format!(
                "the request {}",
                gpucosim_tb::json::what_is_wrong(&e)
            ))
        })?;
        let out = gpucosim_tb::units::eval_json(self.inner.unit(), self.inner.profile(), &value)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        json.call_method1("loads", (out.to_string(),))
    }

    /// Hits per coverage bin, accumulated over the cycles stepped.
    fn coverage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = self.inner.coverage();
        let d = PyDict::new(py);
        for (n, h) in c.bins() {
            d.set_item(n, h)?;
        }
        Ok(d)
    }

    /// `UNIT PROFILE: covered N/M bins; never hit: …`.
    fn coverage_summary(&self) -> String {
        self.inner.coverage_summary()
    }

    /// What is in flight, in one line.
    fn in_flight(&self) -> String {
        self.inner.in_flight()
    }

    fn __repr__(&self) -> String {
        format!(
            "gpucosim.Model({:?}, {:?})",
            self.inner.unit(),
            self.inner.profile().name()
        )
    }
}

impl Model {
    /// Applies `inputs`, then the outputs of the cycle with the edge
    /// (`step`) or without it (`peek`).
    fn outputs_for<'py>(
        &mut self,
        py: Python<'py>,
        inputs: Option<&Bound<'py, PyDict>>,
        edge: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let t = self.inner.table();
        apply(t, &mut self.inputs, inputs)?;
        let r = if edge {
            self.inner.step(&self.inputs, &mut self.outputs)
        } else {
            self.inner.eval(&self.inputs, &mut self.outputs)
        };
        r.map_err(PyValueError::new_err)?;
        to_dict(py, t, Dir::Out, &self.outputs)
    }
}

/// gpucosim's stimulus: the inputs `gpucosim run --seed N` gives the RTL,
/// one cycle per `next()` (reset cycles first), as a dict of every input.
#[pyclass(module = "gpucosim", unsendable)]
struct Stimulus {
    inner: dpi::Stim,
    words: Vec<u32>,
}

#[pymethods]
impl Stimulus {
    #[new]
    #[pyo3(signature = (unit, profile, seed = 1, knobs = ""))]
    fn new(unit: &str, profile: &str, seed: u64, knobs: &str) -> PyResult<Self> {
        let inner = dpi::Stim::new(unit, profile, seed, knobs).map_err(PyValueError::new_err)?;
        Ok(Stimulus {
            words: vec![0; inner.table().in_words()],
            inner,
        })
    }

    /// The inputs of the next cycle.
    fn next<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match self.inner.next(&mut self.words) {
            Ok(true) => to_dict(py, self.inner.table(), Dir::In, &self.words),
            Ok(false) => Err(PyStopIteration::new_err("the stimulus is used up")),
            Err(e) => Err(PyValueError::new_err(e)),
        }
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.next(py)
    }

    /// Transactions used so far.
    #[getter]
    fn txns(&self) -> usize {
        self.inner.txns()
    }
}

/// The units, in command-line order.
#[pyfunction]
fn units() -> Vec<&'static str> {
    gpucosim_tb::units::UNITS.to_vec()
}

/// The port table of a unit.
#[pyfunction]
fn port_table(unit: &str) -> PyResult<Vec<Port>> {
    Ok(ports(dpi::table(unit).map_err(PyValueError::new_err)?))
}

#[pymodule]
#[pyo3(name = "gpucosim")]
fn gpucosim_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Model>()?;
    m.add_class::<Stimulus>()?;
    m.add_class::<Port>()?;
    m.add_function(wrap_pyfunction!(units, m)?)?;
    m.add_function(wrap_pyfunction!(port_table, m)?)?;
    let profiles = gpucosim_model::profile::PROFILES;
    m.add(
        "PROFILES",
        profiles.iter().map(|(p, _)| p.name()).collect::<Vec<_>>(),
    )?;
    let gfx = PyDict::new(m.py());
    for (p, _) in profiles {
        gfx.set_item(p.name(), p.gfx())?;
    }
    m.add("GFX", gfx)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
