import type { ComponentType } from 'react';

/**
 * A dashboard view. To add one, create `src/views/<name>.view.tsx` exporting
 * `view: ViewDefinition`; the registry finds it and the navigation lists it.
 */
export interface ViewDefinition {
  /** URL path, also the view's identity: `/config`. The view owns everything under it. */
  path: string;
  /** Navigation label and page heading. */
  title: string;
  /** Position in the navigation, lowest first; the first view is the home page. */
  order: number;
  Component: ComponentType;
}
