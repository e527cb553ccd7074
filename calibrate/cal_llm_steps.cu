/* cal_llm_steps — the LLM step-time curve of the layer proxy and CUDA graph
 * capture of its decode step: two steps of fleetsim-calibrate (cal_run.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "cal_clock.h"
#include "cal_say.h"
#include "profile_fit.h"
}
#include "cal_blas.h"
#include "cal_layer.h"
#include "cal_run.h"

/* ---- the step-time curve of a transformer-layer proxy ---- */

#define CAL_STEP_COLUMNS "hidden,layers,prefill_tokens,batch,context,kernels,gemm,seconds"

/* Seconds of `layers` layers of one step (T, B, L): GPU time between two
 * events, after `warm` untimed steps; each of `reps` steps is a row. */
static int cal__time_steps(cal_run *r, cal_layer *l, int layers, int t, int b, int ctx, int warm, int reps,
                           cudaEvent_t ev[2])
{
    fs_calib_table *tab = fs_calib_table_get(&r->samples, "step_time", CAL_STEP_COLUMNS);
    int kernels = 0;
    if (!tab) {
        cal_say_error("out of memory recording table step_time");
        return -1;
    }
    for (int k = 0; k < warm + reps; k++) {
        float ms = 0;
        CAL_CUDA(cudaEventRecord(ev[0], 0));
        kernels = cal_layer_enqueue(l, layers, t, b, ctx, 0);
        if (kernels < 0)
            return -1;
        CAL_CUDA(cudaEventRecord(ev[1], 0));
        CAL_CUDA(cudaEventSynchronize(ev[1]));
        CAL_CUDA(cudaEventElapsedTime(&ms, ev[0], ev[1]));
        if (k >= warm) {
            double row[8] = {(double)l->hidden, (double)layers, (double)t, (double)b, (double)ctx, (double)kernels,
                             (double)l->gemm, (double)ms * 1e-3};
            if (fs_calib_table_add(tab, row) != 0) {
                cal_say_error("out of memory recording table step_time");
                return -1;
            }
        }
    }
    return 0;
fail:
    return -1;
}

int cal_step_time_measure(cal_run *r)
{
    static const int hiddens_full[] = {2048, 4096, 8192}, hiddens_quick[] = {4096};
    static const int prefill_full[] = {64, 128, 256, 512, 1024, 2048, 4096}, prefill_quick[] = {128, 512, 2048};
    static const int batch_full[] = {1, 4, 16, 64, 256}, batch_quick[] = {1, 16, 64};
    static const int ctx_full[] = {256, 1024, 4096}, ctx_quick[] = {1024};
    /* Prompt and decode together: the points held out to check the fit. */
    static const int mixed_pts[][3] = {{256, 16, 1024}, {1024, 64, 1024}, {512, 4, 4096}};
    const bool q = r->cfg.quick;
    const int *hid = q ? hiddens_quick : hiddens_full, *pre = q ? prefill_quick : prefill_full;
    const int *bat = q ? batch_quick : batch_full, *ctx = q ? ctx_quick : ctx_full;
    const int nh = q ? 1 : 3, np = q ? 3 : 7, nb = q ? 3 : 5, nc = q ? 1 : 3, nm = q ? 1 : 3;
    const int layers = 2, warm = 2, reps = q ? 3 : 5;
    const size_t kv_cap_bytes = 2 * CAL_GIB; /* K and V of one weight set */
    cudaEvent_t ev[2] = {NULL, NULL};
    cal_layer l;
    char blas[256];
    double t_open;
    int rc = -1, backends = 1;

    memset(&l, 0, sizeof l);
    t_open = cal_clock_now();
    if (cal_blas_open(blas, sizeof blas) == 0) {
        backends = 2;
        /* dlopen and cublasCreate: part of what a framework's start-up costs. */
        if (cal_run_add_scalar(r, "cublas_open", cal_clock_now() - t_open) != 0)
            goto fail;
        fs_calib_note(&r->samples, "step-time: GEMMs measured with the own kernel (gemm 0) and with %s (gemm 1)",
                      blas);
    } else {
        fs_calib_note(&r->samples, "step-time: GEMMs measured with the own kernel only (gemm 0): %s", blas);
    }
    cal_say_step("LLM step time of a layer proxy: %d hidden size%s, prefill, decode and both, %s", nh, cal_run_plural(nh),
                 backends == 2 ? "own and cuBLAS GEMMs" : "own GEMMs (no cuBLAS)");
    CAL_CUDA(cudaEventCreate(&ev[0]));
    CAL_CUDA(cudaEventCreate(&ev[1]));
    for (int be = 0; be < backends; be++) {
        for (int hi = 0; hi < nh; hi++) {
            const int h = hid[hi];
            const size_t kv_tokens = kv_cap_bytes / (4 * (size_t)h); /* K and V, bf16 */
            double best_tflops = 0;
            if (cal_layer_init(&l, h, pre[np - 1] + bat[nb - 1], kv_tokens) != 0)
                goto fail;
            l.gemm = be == 0 ? CAL_GEMM_OWN : CAL_GEMM_CUBLAS;
            for (int i = 0; i < np; i++) {
                fs_calib_table *t;
                double sec, tf;
                if (cal__time_steps(r, &l, layers, pre[i], 0, 0, warm, reps, ev) != 0)
                    goto fail;
                /* This point's last repetition, for the progress line. */
                t = fs_calib_table_get(&r->samples, "step_time", CAL_STEP_COLUMNS);
                sec = t && t->n_rows ? t->values[(t->n_rows - 1) * t->n_columns + 7] : 0;
                tf = sec > 0 ? cal_layer_flops(h, pre[i], 0) * layers / sec * 1e-12 : 0;
                if (tf > best_tflops)
                    best_tflops = tf;
            }
            for (int bi = 0; bi < nb; bi++)
                for (int ci = 0; ci < nc; ci++)
                    if ((size_t)bat[bi] * (size_t)ctx[ci] <= kv_tokens &&
                        cal__time_steps(r, &l, layers, 0, bat[bi], ctx[ci], warm, reps, ev) != 0)
                        goto fail;
            for (int m = 0; m < nm; m++)
                if ((size_t)mixed_pts[m][1] * (size_t)mixed_pts[m][2] <= kv_tokens &&
                    cal__time_steps(r, &l, layers, mixed_pts[m][0], mixed_pts[m][1], mixed_pts[m][2], warm, reps,
                                    ev) != 0)
                    goto fail;
            cal_layer_fini(&l);
            fprintf(stderr, "(%s H %d: prefill up to %.0f TFLOP/s) ", be == 0 ? "own" : "cuBLAS", h, best_tflops);
        }
    }
    cal_say_done();
    rc = 0;
fail:
    cal_layer_fini(&l);
    cal_blas_close();
    if (ev[0])
        cudaEventDestroy(ev[0]);
    if (ev[1])
        cudaEventDestroy(ev[1]);
    return rc;
}

/* ---- CUDA graph capture of the decode step ---- */

int cal_graphs_measure(cal_run *r)
{
    static const int batches_full[] = {1, 2, 4, 8, 16, 32, 64, 128, 256}, batches_quick[] = {1, 8, 64};
    static const int layers_full[] = {8, 32}, layers_quick[] = {32};
    const bool q = r->cfg.quick;
    const int *bat = q ? batches_quick : batches_full, *lay = q ? layers_quick : layers_full;
    const int nb = q ? 3 : 9, nl = q ? 1 : 2, hidden = 4096, context = 1024;
    fs_calib_table *tab = fs_calib_table_get(&r->samples, "graph_capture",
                                             "hidden,layers,batch,context,kernels,capture_s,instantiate_s,"
                                             "first_replay_s,replay_s,launch_s");
    cudaStream_t stream = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cal_layer l;
    int rc = -1;

    memset(&l, 0, sizeof l);
    if (!tab) {
        cal_say_error("out of memory recording table graph_capture");
        return -1;
    }
    cal_say_step("CUDA graph capture of the decode step (H %d, L %d): %d layer count%s x %d batch size%s", hidden,
                 context, nl, cal_run_plural(nl), nb, cal_run_plural(nb));
    if (cal_layer_init(&l, hidden, bat[nb - 1], (size_t)bat[nb - 1] * context) != 0)
        goto fail;
    CAL_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (int li = 0; li < nl; li++) {
        for (int bi = 0; bi < nb; bi++) {
            double t0, t1, t2, t3, replay[5], launch[5];
            int kernels;
            CAL_CUDA(cudaDeviceSynchronize());
            t0 = cal_clock_now();
            CAL_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
            kernels = cal_layer_enqueue(&l, lay[li], 0, bat[bi], context, stream);
            if (kernels < 0) {
                cudaStreamEndCapture(stream, &graph);
                goto fail;
            }
            CAL_CUDA(cudaStreamEndCapture(stream, &graph));
            t1 = cal_clock_now();
            CAL_CUDA(cudaGraphInstantiate(&exec, graph, 0));
            t2 = cal_clock_now();
            CAL_CUDA(cudaGraphLaunch(exec, stream));
            CAL_CUDA(cudaStreamSynchronize(stream));
            t3 = cal_clock_now();
            for (int k = 0; k < 5; k++) {
                double a = cal_clock_now();
                CAL_CUDA(cudaGraphLaunch(exec, stream));
                CAL_CUDA(cudaStreamSynchronize(stream));
                replay[k] = cal_clock_now() - a;
                a = cal_clock_now();
                if (cal_layer_enqueue(&l, lay[li], 0, bat[bi], context, stream) < 0)
                    goto fail;
                CAL_CUDA(cudaStreamSynchronize(stream));
                launch[k] = cal_clock_now() - a;
            }
            {
                double row[10] = {(double)hidden, (double)lay[li], (double)bat[bi], (double)context, (double)kernels,
                                  t1 - t0, t2 - t1, t3 - t2, fs_calib_quantile(replay, 5, 0.5),
                                  fs_calib_quantile(launch, 5, 0.5)};
                if (fs_calib_table_add(tab, row) != 0) {
                    cal_say_error("out of memory recording table graph_capture");
                    goto fail;
                }
            }
            CAL_CUDA(cudaGraphExecDestroy(exec));
            exec = NULL;
            CAL_CUDA(cudaGraphDestroy(graph));
            graph = NULL;
        }
    }
    cal_say_done();
    rc = 0;
fail:
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    if (stream)
        cudaStreamDestroy(stream);
    cal_layer_fini(&l);
    return rc;
}

