import { sortViews } from './sort-views';
import type { ViewDefinition } from './view-definition';

const modules = import.meta.glob<{ view: ViewDefinition }>('./*.view.tsx', { eager: true });

/** Every `*.view.tsx` file in this folder, in navigation order. */
export const views: readonly ViewDefinition[] = sortViews(Object.values(modules).map((m) => m.view));
