/* viz_gfx.h -- the drawing context shared by viz_draw.c (offscreen) and
 * viz_window.c (the interactive window).  Not a public header. */
#ifndef ASC_VIZ_GFX_H
#define ASC_VIZ_GFX_H

#include "asc/viz.h"

#include <SDL.h>

#define LOD_LEVELS 8

typedef struct VizGfx {
    SDL_Renderer *ren;     /* not owned */
    SDL_Texture *atlas;    /* glyphs of DejaVu Sans Mono 12 */
    int cw, ch;            /* text advance and line height in pixels */
    int cellw, cellh;      /* atlas cell: glyphs may overhang the advance and the descent */
    float *busy, *stall;   /* LOD scratch, one per plot column */
    float *last;           /* counter LOD scratch (lo, hi reuse busy, stall) */
    SDL_Rect *rects[LOD_LEVELS + 4];
    int cap;
} VizGfx;

int viz_gfx_init(VizGfx *g, SDL_Renderer *ren, const char *font_path, AscVizError *err);
void viz_gfx_free(VizGfx *g);
/* Height of the details panel of a selected event (the window reserves it
 * under the rows with asc_viz_view_reserve_bottom). */
int viz_gfx_details_height(const VizGfx *g);
/* Height of the step-mode panel for a state. */
int viz_gfx_step_height(const VizGfx *g, const AscVizState *st);
/* Draw one whole frame of m through v, with ui's hover/selection/overlays. */
void viz_gfx_draw(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui);

#endif
