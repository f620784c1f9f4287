//! `Session` (core: `ankita::session`): a history handed over message by message, trimmed at
//! any time. Each message is converted to JSON once, when appended; a trim plans over what the
//! core holds with the GIL released and answers with the caller's own objects.

use ankita::json::to_json_string;
use ankita::session::TrimSession;
use pyo3::exceptions::{PyBaseException, PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use crate::convert::{items, message_to_value, Path};
use crate::error::to_py_err;
use crate::trim::{build_messages_from, session_report_dict, without_gil, DroppedRun, TrimResult};

/// An incremental session: a chat history handed over as it happens, trimmed at any time.
///
/// ``Session(messages=None, **options)`` takes the keyword options of ``trim``. ``append``
/// adds messages (each is converted once, when appended), ``truncate(n)`` keeps the first
/// ``n`` (then append the edited or regenerated tail), ``trim()`` answers what ``trim`` answers
/// for the same messages and options: a ``TrimResult`` whose unchanged messages are the objects
/// given to ``append``. ``snapshot()`` is the list of messages held (to save);
/// ``Session.restore(saved, **options)`` makes a session of them again.
///
/// A session is cache-stable by default: given neither ``trim_to`` nor ``cut``, it trims with
/// ``trim_to=0.75`` and carries each result's ``report["cut"]`` to the next trim, so the
/// history's prefix (which a provider's prompt cache serves) holds from call to call: a
/// trim that must remove something removes down to that share of the budget, and does not
/// fill. ``trim_to=None`` opts out: ``trim()`` then answers what ``trim`` answers without
/// ``trim_to`` and ``cut``.
///
/// ``summarize(messages, previous)`` (optional) summarises what the cut removes: when a trim's
/// cut moves, the session calls it with the messages to fold in (the objects given, as
/// ``report["compaction"]`` names them) and the previous summary's text (or None), and trims
/// again with the returned text placed right after the pinned message in their stead (see
/// ``docs/cache-stable.md``); an exception, a result that is not a str, or a summary that does
/// not fit leaves the trim as it was, with a warning.
///
/// A session is used by one thread at a time: a call while another thread's call on the same
/// session runs raises RuntimeError. The GIL is released while the plan is computed.
#[pyclass(module = "ankita")]
pub struct Session {
    core: TrimSession,
    /// The caller's messages, in order.
    given: Vec<Py<PyAny>>,
    /// What each message was handed to the core as: the message itself, or its dict form
    /// (an SDK object); changed messages are copies of these.
    sent: Vec<Py<PyAny>>,
    system: Py<PyAny>,
    /// Large screenshots cross as header-only stand-ins (formats that edit messages in place).
    stand_ins: bool,
    /// The ints of the reports' dropped messages, reused from trim to trim.
    dropped: DroppedRun,
    /// `summarize(messages, previous)`: called when the cut moves, its text placed from then on.
    summarize: Option<Py<PyAny>>,
    /// `summarize` is a coroutine function: only `trim_async` can await it.
    summarize_is_async: bool,
    /// Truncations that removed messages: one made while `summarize` ran may have removed
    /// messages its summary stands for.
    truncations: u64,
}

/// What a trim whose cut moved asks `summarize` for, and the session as that trim saw it.
#[pyclass(frozen, module = "ankita._ankita")]
pub struct Fold {
    /// The session's summariser.
    #[pyo3(get)]
    summarize: Py<PyAny>,
    /// The messages to fold in (the objects given), as `report["compaction"]` names them.
    #[pyo3(get)]
    messages: Py<PyList>,
    /// The previous summary's text, or None.
    #[pyo3(get)]
    previous: Option<String>,
    /// The last input index the new summary stands for.
    through: usize,
    /// The session's length and truncations when the trim ran.
    seen: (usize, u64),
    /// The summary and the cut the trim left (what a failed summary leaves them).
    summary: Option<ankita::cache_keys::Summary>,
    cut: Option<usize>,
}

#[pymethods]
impl Session {
    #[new]
    #[pyo3(signature = (messages = None, *, summarize = None, **options))]
    fn new(
        py: Python<'_>,
        messages: Option<&Bound<'_, PyAny>>,
        summarize: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        // Read as `trim` reads them (None is "not given", but `max_messages=None` is no count
        // limit), and the system and format kept for the answers.
        let map = crate::trim::options(&[], options).map_err(|e| to_py_err(py, &e))?;
        let given = |key: &str| -> PyResult<Option<Bound<'_, PyAny>>> {
            Ok(match options {
                Some(d) => d.get_item(key)?.filter(|v| !v.is_none()),
                None => None,
            })
        };
        let system = given("system")?.map_or_else(|| py.None(), Bound::unbind);
        let stand_ins = crate::trim::stand_ins(given("format")?.as_ref());
        let core = TrimSession::new(&to_json_string(&Value::Object(map)))
            .map_err(|e| to_py_err(py, &e))?;
        let mut session = Session {
            core,
            given: Vec::new(),
            sent: Vec::new(),
            system,
            stand_ins,
            dropped: DroppedRun::default(),
            summarize: None,
            summarize_is_async: false,
            truncations: 0,
        };
        if let Some(f) = summarize.filter(|f| !f.is_none()) {
            session.summarize_is_async = py
                .import("inspect")?
                .call_method1("iscoroutinefunction", (f,))?
                .is_truthy()?;
            session.summarize = Some(f.clone().unbind());
        }
        if let Some(messages) = messages.filter(|m| !m.is_none()) {
            session.append(py, messages)?;
        }
        Ok(session)
    }

    /// Appends messages (a list or tuple); returns how many the session holds.
    fn append(&mut self, py: Python<'_>, messages: &Bound<'_, PyAny>) -> PyResult<usize> {
        let given = items(messages, "messages").map_err(|e| to_py_err(py, &e))?;
        let as_mapping = if self.stand_ins {
            Some(py.import("ankita._messages")?.getattr("_as_mapping")?)
        } else {
            None
        };
        let mut sent = Vec::with_capacity(given.len());
        let mut values = Vec::with_capacity(given.len());
        let root = Path::Root("messages");
        for (i, message) in given.iter().enumerate() {
            let form = match &as_mapping {
                Some(f) => f.call1((message,))?,
                None => message.clone(),
            };
            let path = Path::Index(&root, self.given.len() + i);
            values.push(
                message_to_value(&form, path, self.stand_ins).map_err(|e| to_py_err(py, &e))?,
            );
            sent.push(form.unbind());
        }
        let text = to_json_string(&Value::Array(values));
        let core = &mut self.core;
        let len = without_gil(py, || core.append(&text)).map_err(|e| to_py_err(py, &e))?;
        self.given.extend(given.into_iter().map(Bound::unbind));
        self.sent.extend(sent);
        Ok(len)
    }

    /// Keeps the first ``length`` messages; returns how many the session holds.
    fn truncate(&mut self, length: usize) -> usize {
        if length < self.given.len() {
            self.truncations += 1;
        }
        self.given.truncate(length);
        self.sent.truncate(length);
        self.core.truncate(length)
    }

    /// Trims the history held: what ``trim`` answers for the same messages and options. With
    /// ``summarize``, a trim whose cut moved calls it with the messages to fold in (the objects
    /// given) and the previous summary's text (or None), outside the session, and trims again
    /// with the summary it returns in their stead; an exception, a result that is not a str, or
    /// a summary that does not fit leaves the trim as it was, with a warning. An async
    /// ``summarize`` is awaited by ``trim_async``: here it raises TypeError.
    fn trim(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<TrimResult> {
        if slf.try_borrow()?.summarize_is_async {
            return Err(PyTypeError::new_err(
                "summarize is a coroutine function: await session.trim_async() instead of \
                 calling session.trim()",
            ));
        }
        let (result, fold) = Session::trim_step(slf, py)?;
        let Some(fold) = fold else {
            return Ok(result);
        };
        // Outside the session: the callback may read it.
        let fold = fold.get();
        let outcome = match fold.summarize.call1(py, (&fold.messages, &fold.previous)) {
            Ok(text) => text.into_bound(py),
            // Exceptions fall back to plain trimming; KeyboardInterrupt and the like do not.
            Err(e) if e.is_instance_of::<PyException>(py) => {
                e.into_value(py).into_bound(py).into_any()
            }
            Err(e) => return Err(e),
        };
        if outcome.is_instance_of::<PyBaseException>() {
            return Session::fold_in(slf, py, result, fold, &outcome);
        }
        if py
            .import("inspect")?
            .call_method1("isawaitable", (&outcome,))?
            .is_truthy()?
        {
            // Closed, not left to warn that it was never awaited.
            for method in ["close", "cancel"] {
                if outcome.hasattr(method)? {
                    outcome.call_method0(method)?;
                    break;
                }
            }
            return Err(PyTypeError::new_err(format!(
                "summarize returned {}, an awaitable: await session.trim_async() instead of \
                 calling session.trim()",
                outcome.get_type().name()?
            )));
        }
        Session::fold_in(slf, py, result, fold, &outcome)
    }

    /// Trims the history held, as ``trim`` does, awaiting ``summarize`` when it is async (a
    /// coroutine function, or a function returning an awaitable); a sync one is called as
    /// ``trim`` calls it. The summariser runs outside the session, which other tasks may use
    /// meanwhile; the plans themselves run in the calling thread (milliseconds).
    fn trim_async<'py>(slf: &Bound<'py, Self>, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("ankita._session")?
            .getattr("trim_async")?
            .call1((slf,))
    }

    /// A trim, and what its moved cut asks ``summarize`` for (None: nothing); the first step
    /// of ``trim_async`` (ankita/_session.py).
    fn _trim_step(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
    ) -> PyResult<(TrimResult, Option<Py<Fold>>)> {
        Session::trim_step(slf, py)
    }

    /// What ``summarize`` answered for ``fold`` (its text, or the exception it raised), placed
    /// as ``trim`` places it; the last step of ``trim_async``.
    fn _fold_in(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        result: Py<TrimResult>,
        fold: Py<Fold>,
        outcome: &Bound<'_, PyAny>,
    ) -> PyResult<TrimResult> {
        let result = result.get();
        let result = TrimResult {
            messages: result.messages.clone_ref(py),
            report: result.report.clone_ref(py),
            system: result.system.clone_ref(py),
        };
        Session::fold_in(slf, py, result, fold.get(), outcome)
    }

    /// The provider's count of the input tokens of the request that sent the last trim's
    /// messages (the response's `usage.input_tokens`), paired with the core's own count of it:
    /// sets the factor the next trims count with (`ankita::calibrate`). Returns
    /// `report["token_factor"]` as the next trim will write it.
    fn observe_usage<'py>(
        &mut self,
        py: Python<'py>,
        input_tokens: i64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let tokens = u64::try_from(input_tokens).map_err(|_| {
            let e = ankita::Error::new(
                ankita::ErrorCode::InvalidArgument,
                format!(
                    "input_tokens must be the provider's count of the request, not {input_tokens}"
                ),
            );
            to_py_err(py, &e)
        })?;
        let factor = self
            .core
            .observe_usage(tokens)
            .map_err(|e| to_py_err(py, &e))?;
        let dict = PyDict::new(py);
        dict.set_item("value", factor.value)?;
        dict.set_item("source", factor.source.as_str())?;
        dict.set_item("observations", factor.observations)?;
        Ok(dict)
    }

    /// The messages held, as a new list of the objects given (to save, then restore).
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.given.iter().map(|m| m.bind(py)))
    }

    /// A session holding ``messages`` (a snapshot, or what an application saved).
    #[classmethod]
    #[pyo3(signature = (messages, *, summarize = None, **options))]
    fn restore(
        _cls: &Bound<'_, pyo3::types::PyType>,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        summarize: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        Session::new(py, Some(messages), summarize, options)
    }

    fn __len__(&self) -> usize {
        self.given.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "Session(<{} messages>, {} bytes held)",
            self.given.len(),
            self.core.bytes_held()
        )
    }

    /// Bytes the core holds for this session: its copy of the messages' JSON, and what it
    /// keeps to trim them again without reading them again.
    #[getter]
    fn bytes_held(&self) -> usize {
        self.core.bytes_held()
    }

    /// Bytes of JSON handed to the core so far (the options and every append; large
    /// screenshots as header-only stand-ins).
    #[getter]
    fn bytes_given(&self) -> usize {
        self.core.bytes_given()
    }
}

impl Session {
    /// A trim, and what its moved cut asks `summarize` for (None without `summarize`, or when
    /// the cut stands).
    fn trim_step(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
    ) -> PyResult<(TrimResult, Option<Py<Fold>>)> {
        let result = slf.try_borrow_mut()?.trim_once(py)?;
        let this = slf.try_borrow()?;
        let Some(summarize) = &this.summarize else {
            return Ok((result, None));
        };
        let Some(compaction) = result.report.bind(py).get_item("compaction")? else {
            return Ok((result, None));
        };
        let indices: Vec<usize> = compaction.get_item("messages")?.extract()?;
        let through: usize = compaction.get_item("through")?.extract()?;
        let messages = PyList::new(
            py,
            indices
                .iter()
                .filter_map(|&i| this.given.get(i))
                .map(|m| m.bind(py)),
        )?;
        let fold = Fold {
            summarize: summarize.clone_ref(py),
            messages: messages.unbind(),
            previous: this.core.summary().map(|s| s.text.clone()),
            through,
            seen: (this.given.len(), this.truncations),
            summary: this.core.summary().cloned(),
            cut: this.core.options().cache.cut,
        };
        Ok((result, Some(Py::new(py, fold)?)))
    }

    /// Places what `summarize` answered (`outcome`: its text, or the exception it raised) and
    /// trims again. An exception, a result that is not a str, a truncation meanwhile that may
    /// have removed what it summarises, or a summary that does not fit: the trim without a new
    /// summary, with a warning (never an error: the turn goes on).
    fn fold_in(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        result: TrimResult,
        fold: &Fold,
        outcome: &Bound<'_, PyAny>,
    ) -> PyResult<TrimResult> {
        let truncated = slf.try_borrow()?.truncations != fold.seen.1;
        let text = if outcome.is_instance_of::<PyBaseException>() {
            let kind = outcome.get_type().name()?;
            Err(format!("summarize failed ({kind}: {outcome})"))
        } else if let Ok(text) = outcome.extract::<String>() {
            Ok(text)
        } else {
            Err(format!(
                "summarize returned {}, not a str",
                outcome.get_type().name()?
            ))
        };
        let text = match text {
            Ok(_) if truncated => Err("the session was truncated while summarize ran".into()),
            text => text,
        };
        let text = match text {
            Ok(text) => text,
            Err(why) => return Session::fall_back(slf, py, result, fold, &why),
        };
        let through = fold.through;
        let again = {
            let mut this = slf.try_borrow_mut()?;
            this.core
                .set_summary(Some(ankita::cache_keys::Summary { text, through }));
            this.trim_once(py)?
        };
        let mut over = false;
        if let Some(warnings) = again.report.bind(py).get_item("warnings")? {
            for warning in warnings.try_iter()? {
                over |= warning?.get_item("code")?.eq("summary_over_budget")?;
            }
        }
        if over {
            let why = "the summary does not fit the budget";
            return Session::fall_back(slf, py, result, fold, why);
        }
        Ok(again)
    }

    /// The trim without a new summary, with a warning saying `why`: the summary as it was,
    /// and the first trim's answer unless the history or the cut changed since.
    fn fall_back(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        result: TrimResult,
        fold: &Fold,
        why: &str,
    ) -> PyResult<TrimResult> {
        crate::api::warn_unknown_model(
            py,
            &format!("{why}: the turn is trimmed without a new summary"),
        )?;
        let mut this = slf.try_borrow_mut()?;
        if this.truncations != fold.seen.1 {
            return this.trim_once(py);
        }
        this.core.set_summary(fold.summary.clone());
        if this.given.len() == fold.seen.0 && this.core.options().cache.cut == fold.cut {
            return Ok(result);
        }
        this.trim_once(py)
    }

    /// One trim of the history held (see `trim`).
    fn trim_once(&mut self, py: Python<'_>) -> PyResult<TrimResult> {
        let core = &mut self.core;
        let plan = without_gil(py, || core.plan()).map_err(|e| to_py_err(py, &e))?;
        // Unchanged messages are the caller's own objects; changed ones are copies of what
        // was sent (the dict form of an SDK object).
        let (given, sent) = (&self.given, &self.sent);
        let messages = build_messages_from(
            py,
            |i| given[i].bind(py).clone(),
            |i| sent[i].bind(py).clone(),
            &plan.messages,
        )?;
        Ok(TrimResult {
            messages: messages.unbind(),
            report: session_report_dict(py, &plan.report, Some(&mut self.dropped))?.unbind(),
            system: self.system.clone_ref(py),
        })
    }
}
