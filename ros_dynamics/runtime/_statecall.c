/*
 * Copyright 2026 The ros_dynamics Authors
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * ros_dynamics.runtime._statecall: call a compiled single-state kernel from Python cheaply.
 *
 * No dynamics here. The kernels are numba C callbacks (ros_dynamics.runtime.jit.state_entry)
 * with the signature of `entry_fn`; a StateCall binds one to a packed model and a
 * number of coordinates n and calls it with the data pointers of its array arguments.
 * Calling numba's own dispatcher costs 0.4-0.6 us per call in argument typing and
 * unboxing; this costs under 0.1 us.
 *
 *   call(a[, b, c]) -> new float64 array of out_shape, or None when an argument is not
 *       exactly a float64 C-contiguous aligned native-order ndarray of shape (n,) or the
 *       kernel refuses the state (status != 0); the caller then takes its general path,
 *       which validates and raises the documented errors.
 *   call.into(out, a[, b, c]) -> the kernel's status; TypeError for malformed arrays.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#define MAX_INPUTS 3
/* bodies above which a call releases the GIL (below, the release costs more than it frees) */
#define RELEASE_GIL_ROWS 64

typedef int64_t (*entry_fn)(const double *model, int64_t rows, int64_t n, const double *a,
                            const double *b, const double *c, const double *extra, double *out);

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    entry_fn function;
    PyObject *model;        /* the packed model (kept alive) */
    PyObject *extra;        /* constant data for the kernel (a link's frame) or NULL */
    const double *model_data;
    const double *extra_data;
    int64_t rows;
    npy_intp n;
    npy_intp first;         /* the size of the first input: nq when it is q, else n */
    int inputs;
    int out_ndim;
    npy_intp out_shape[2];
} StateCall;

/* a float64 C-contiguous aligned native-order vector of n (exact: no ndarray subclass) */
static int is_vector(PyObject *object, npy_intp n, int exact)
{
    if (exact ? Py_TYPE(object) != &PyArray_Type : !PyArray_Check(object)) {
        return 0;
    }
    PyArrayObject *array = (PyArrayObject *)object;
    return PyArray_NDIM(array) == 1 && PyArray_DIM(array, 0) == n &&
           PyArray_TYPE(array) == NPY_DOUBLE && PyArray_ISCARRAY_RO(array);
}

static int64_t run(StateCall *self, const double **inputs, double *out)
{
    int64_t status;
    if (self->rows > RELEASE_GIL_ROWS) {
        Py_BEGIN_ALLOW_THREADS
        status = self->function(self->model_data, self->rows, self->n, inputs[0], inputs[1],
                                inputs[2], self->extra_data, out);
        Py_END_ALLOW_THREADS
    } else {
        status = self->function(self->model_data, self->rows, self->n, inputs[0], inputs[1],
                                inputs[2], self->extra_data, out);
    }
    return status;
}

static PyObject *statecall_vectorcall(PyObject *object, PyObject *const *args, size_t nargsf,
                                      PyObject *kwnames)
{
    StateCall *self = (StateCall *)object;
    const double *inputs[MAX_INPUTS] = {NULL, NULL, NULL};
    if (PyVectorcall_NARGS(nargsf) != (Py_ssize_t)self->inputs || kwnames != NULL) {
        Py_RETURN_NONE;
    }
    for (int k = 0; k < self->inputs; k++) {
        if (!is_vector(args[k], k == 0 ? self->first : self->n, 1)) {
            Py_RETURN_NONE;
        }
        inputs[k] = (const double *)PyArray_DATA((PyArrayObject *)args[k]);
    }
    PyObject *out = PyArray_SimpleNew(self->out_ndim, self->out_shape, NPY_DOUBLE);
    if (out == NULL) {
        return NULL;
    }
    if (run(self, inputs, (double *)PyArray_DATA((PyArrayObject *)out)) != 0) {
        Py_DECREF(out);
        Py_RETURN_NONE;
    }
    return out;
}

static PyObject *statecall_into(PyObject *object, PyObject *const *args, Py_ssize_t nargs)
{
    StateCall *self = (StateCall *)object;
    const double *inputs[MAX_INPUTS] = {NULL, NULL, NULL};
    if (nargs != self->inputs + 1) {
        PyErr_Format(PyExc_TypeError, "into(out, ...) takes the output and %d state arrays",
                     self->inputs);
        return NULL;
    }
    PyArrayObject *out = (PyArrayObject *)args[0];
    if (!PyArray_Check(args[0]) || PyArray_TYPE(out) != NPY_DOUBLE || !PyArray_ISCARRAY(out) ||
        PyArray_NDIM(out) != self->out_ndim ||
        !PyArray_CompareLists(PyArray_DIMS(out), self->out_shape, self->out_ndim)) {
        PyErr_SetString(PyExc_TypeError,
                        "out: expected a writable C-contiguous float64 array of the kernel's "
                        "output shape");
        return NULL;
    }
    for (int k = 0; k < self->inputs; k++) {
        npy_intp size = k == 0 ? self->first : self->n;
        if (!is_vector(args[k + 1], size, 0)) {
            PyErr_Format(PyExc_TypeError,
                         "state argument %d: expected a C-contiguous float64 array of shape "
                         "(%zd,)", k, (Py_ssize_t)size);
            return NULL;
        }
        inputs[k] = (const double *)PyArray_DATA((PyArrayObject *)args[k + 1]);
    }
    return PyLong_FromLongLong(run(self, inputs, (double *)PyArray_DATA(out)));
}

static PyObject *statecall_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *keywords[] = {"address", "model", "n", "inputs", "out_shape", "extra", "first",
                               NULL};
    unsigned long long address;
    PyArrayObject *model;
    Py_ssize_t n, first = -1, rows_out = 0;
    int inputs;
    PyObject *out_shape, *extra = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KO!niO|On", keywords, &address,
                                     &PyArray_Type, &model, &n, &inputs, &out_shape, &extra,
                                     &first)) {
        return NULL;
    }
    if (address == 0 || inputs < 1 || inputs > MAX_INPUTS || n < 0) {
        PyErr_SetString(PyExc_ValueError, "StateCall: bad address, n or number of inputs");
        return NULL;
    }
    if (PyArray_NDIM(model) != 2 || PyArray_TYPE(model) != NPY_DOUBLE ||
        !PyArray_ISCARRAY_RO(model)) {
        PyErr_SetString(PyExc_TypeError, "model: expected a 2-D C-contiguous float64 array");
        return NULL;
    }
    if (extra != Py_None && (!PyArray_Check(extra) ||
                             PyArray_TYPE((PyArrayObject *)extra) != NPY_DOUBLE ||
                             !PyArray_ISCARRAY_RO((PyArrayObject *)extra))) {
        PyErr_SetString(PyExc_TypeError, "extra: expected a C-contiguous float64 array");
        return NULL;
    }
    /* out_shape: (n,) or (rows, n) */
    if (!PyTuple_Check(out_shape) || PyTuple_GET_SIZE(out_shape) < 1 ||
        PyTuple_GET_SIZE(out_shape) > 2) {
        PyErr_SetString(PyExc_TypeError, "out_shape: expected a tuple of 1 or 2 sizes");
        return NULL;
    }
    StateCall *self = (StateCall *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->out_ndim = (int)PyTuple_GET_SIZE(out_shape);
    for (int k = 0; k < self->out_ndim; k++) {
        rows_out = PyLong_AsSsize_t(PyTuple_GET_ITEM(out_shape, k));
        if (rows_out < 0) {
            Py_DECREF(self);
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_ValueError, "out_shape: sizes must be >= 0");
            }
            return NULL;
        }
        self->out_shape[k] = rows_out;
    }
    self->vectorcall = statecall_vectorcall;
    self->function = (entry_fn)(uintptr_t)address;
    Py_INCREF(model);
    self->model = (PyObject *)model;
    self->model_data = (const double *)PyArray_DATA(model);
    self->rows = PyArray_DIM(model, 0);
    self->n = n;
    self->first = first >= 0 ? first : n;
    self->inputs = inputs;
    if (extra != Py_None) {
        Py_INCREF(extra);
        self->extra = extra;
        self->extra_data = (const double *)PyArray_DATA((PyArrayObject *)extra);
    }
    return (PyObject *)self;
}

static void statecall_dealloc(StateCall *self)
{
    Py_XDECREF(self->model);
    Py_XDECREF(self->extra);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef statecall_methods[] = {
    {"into", (PyCFunction)(void (*)(void))statecall_into, METH_FASTCALL,
     "into(out, *states) -> status: run the kernel into a validated output array."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject StateCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "ros_dynamics.runtime._statecall.StateCall",
    .tp_doc = "StateCall(address, model, n, inputs, out_shape, extra=None): a compiled "
              "single-state kernel bound to a packed model.",
    .tp_basicsize = sizeof(StateCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(StateCall, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = statecall_new,
    .tp_dealloc = (destructor)statecall_dealloc,
    .tp_methods = statecall_methods,
};

static struct PyModuleDef statecall_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_statecall",
    .m_doc = "Call compiled single-state kernels (numba C callbacks) from Python.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__statecall(void)
{
    import_array();
    if (PyType_Ready(&StateCallType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&statecall_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&StateCallType);
    if (PyModule_AddObject(module, "StateCall", (PyObject *)&StateCallType) < 0) {
        Py_DECREF(&StateCallType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
