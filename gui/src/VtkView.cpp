#include "VtkView.hpp"

#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLExtraFunctions>
#include <QWheelEvent>

#include <vtkCallbackCommand.h>
#include <vtkCommand.h>
#include <vtkGenericOpenGLRenderWindow.h>
#include <vtkGenericRenderWindowInteractor.h>
#include <vtkInteractorStyleTrackballCamera.h>
#include <vtkOpenGLFramebufferObject.h>
#include <vtkOpenGLState.h>
#include <vtkRendererCollection.h>

namespace racktwin::gui {

VtkView::VtkView(QWidget* parent) : QOpenGLWidget(parent) {
  window_ = vtkGenericOpenGLRenderWindow::New();
  window_->SetReadyForRendering(false);
  window_->SetMultiSamples(0);

  // VTK asks its host to make the context current, to say whether it is current, and to show a
  // finished frame; the widget answers through these observers.
  vtkNew<vtkCallbackCommand> callback;
  callback->SetClientData(this);
  callback->SetCallback(&VtkView::vtkCallback);
  const unsigned long events[3] = {vtkCommand::WindowMakeCurrentEvent,
                                   vtkCommand::WindowIsCurrentEvent, vtkCommand::WindowFrameEvent};
  for (int i = 0; i < 3; ++i)
    observer_tags_[i] = window_->AddObserver(events[i], callback);

  interactor_ = vtkGenericRenderWindowInteractor::New();
  interactor_->SetRenderWindow(window_);
  vtkNew<vtkInteractorStyleTrackballCamera> style;
  interactor_->SetInteractorStyle(style);
  interactor_->Initialize();
  // The interactor renders through the window; the widget decides when (paintGL).
  interactor_->EnableRenderOff();

  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(320, 240);
}

VtkView::~VtkView() {
  finalizeContext();
  // ~QOpenGLWidget destroys the context after this body: no callback into a half-gone widget.
  if (context() != nullptr) disconnect(context(), nullptr, this, nullptr);
  for (const unsigned long tag : observer_tags_)
    window_->RemoveObserver(tag);
  interactor_->SetRenderWindow(nullptr);
  interactor_->Delete();
  window_->Delete();
}

void VtkView::finalizeContext() {
  if (context() == nullptr || window_ == nullptr || !window_->GetReadyForRendering()) return;
  makeCurrent();
  window_->Finalize();
  window_->SetReadyForRendering(false);
  doneCurrent();
}

void VtkView::vtkCallback(vtkObject* caller, unsigned long event_id, void* client_data,
                          void* call_data) {
  static_cast<VtkView*>(client_data)->onVtkEvent(caller, event_id, call_data);
}

void VtkView::onVtkEvent(vtkObject* /*caller*/, unsigned long event_id, void* call_data) {
  switch (event_id) {
    case vtkCommand::WindowMakeCurrentEvent:
      // Only when another context is current: re-binding Qt's FBO on every request (VTK makes
      // about 18 per render) leaves VTK's state cache believing its own FBO is still bound.
      if (QOpenGLContext::currentContext() != context()) {
        makeCurrent();
        window_->GetState()->ResetFramebufferBindings();
      }
      break;
    case vtkCommand::WindowIsCurrentEvent:
      *static_cast<bool*>(call_data) = QOpenGLContext::currentContext() == context();
      break;
    case vtkCommand::WindowFrameEvent:
      // VTK finished a frame outside paintGL (e.g. the interactor rendered): show it.
      render_pending_ = false;
      if (!in_paint_) update();
      break;
    default:
      break;
  }
}

void VtkView::requestRender() {
  render_pending_ = true;
  update();
}

void VtkView::initializeGL() {
  window_->SetOwnContext(false);
  window_->SetForceMaximumHardwareLineWidth(1);
  window_->SetFrameBlitModeToNoBlit();
  window_->SetReadyForRendering(true);
  window_->OpenGLInitContext();
  // Qt may destroy the context before the widget: release VTK's resources while it exists.
  connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &VtkView::finalizeContext,
          Qt::UniqueConnection);
  render_pending_ = true;
}

void VtkView::resizeGL(int w, int h) {
  const double dpr = devicePixelRatioF();
  const int width = static_cast<int>(w * dpr + 0.5);
  const int height = static_cast<int>(h * dpr + 0.5);
  interactor_->UpdateSize(width, height);
  window_->SetSize(width, height);
  render_pending_ = true;
}

void VtkView::paintGL() {
  if (!window_->GetReadyForRendering()) return;
  in_paint_ = true;
  const double dpr = devicePixelRatioF();
  const int width = static_cast<int>(this->width() * dpr + 0.5);
  const int height = static_cast<int>(this->height() * dpr + 0.5);
  if (window_->GetSize()[0] != width || window_->GetSize()[1] != height) {
    interactor_->UpdateSize(width, height);
    window_->SetSize(width, height);
  }
  // Qt bound its FBO behind VTK's back.
  window_->GetState()->ResetFramebufferBindings();
  // Render into VTK's own framebuffer (always: Qt may have discarded the widget's buffer).
  render_pending_ = false;
  window_->Render();

  makeCurrent();
  QOpenGLExtraFunctions* f = context()->extraFunctions();
  f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  const GLenum buffers[1] = {GL_COLOR_ATTACHMENT0};
  f->glDrawBuffers(1, buffers);
  window_->GetState()->ResetFramebufferBindings();
  int* size = window_->GetRenderFramebuffer()->GetLastSize();
  window_->BlitDisplayFramebuffer(0, 0, 0, size[0], size[1], 0, 0, width, height,
                                  GL_COLOR_BUFFER_BIT, GL_LINEAR);
  // VTK leaves alpha 0 where the background is; the window composes the widget with its alpha.
  f->glBindFramebuffer(GL_DRAW_FRAMEBUFFER, defaultFramebufferObject());
  f->glColorMask(GL_FALSE, GL_FALSE, GL_FALSE, GL_TRUE);
  f->glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
  f->glClear(GL_COLOR_BUFFER_BIT);
  f->glColorMask(GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
  window_->GetState()->ResetFramebufferBindings();
  in_paint_ = false;
}

QImage VtkView::grabView() {
  render_pending_ = true;
  QImage image = grabFramebuffer();
  return image.convertToFormat(QImage::Format_RGB32);
}

void VtkView::setEventPosition(const QPointF& position, Qt::KeyboardModifiers modifiers,
                               int repeat) {
  const double dpr = devicePixelRatioF();
  interactor_->SetEventInformationFlipY(static_cast<int>(position.x() * dpr + 0.5),
                                        static_cast<int>(position.y() * dpr + 0.5),
                                        (modifiers & Qt::ControlModifier) ? 1 : 0,
                                        (modifiers & Qt::ShiftModifier) ? 1 : 0, 0, repeat);
}

void VtkView::mousePressEvent(QMouseEvent* event) {
  setEventPosition(event->position(), event->modifiers(),
                   event->type() == QEvent::MouseButtonDblClick ? 1 : 0);
  press_position_ = event->position().toPoint();
  dragged_ = false;
  switch (event->button()) {
    case Qt::LeftButton:
      interactor_->InvokeEvent(vtkCommand::LeftButtonPressEvent);
      break;
    case Qt::MiddleButton:
      interactor_->InvokeEvent(vtkCommand::MiddleButtonPressEvent);
      break;
    case Qt::RightButton:
      interactor_->InvokeEvent(vtkCommand::RightButtonPressEvent);
      break;
    default:
      break;
  }
  requestRender();
}

void VtkView::mouseMoveEvent(QMouseEvent* event) {
  setEventPosition(event->position(), event->modifiers());
  if ((event->position().toPoint() - press_position_).manhattanLength() > 4) dragged_ = true;
  interactor_->InvokeEvent(vtkCommand::MouseMoveEvent);
  if (event->buttons() != Qt::NoButton) requestRender();
}

void VtkView::mouseReleaseEvent(QMouseEvent* event) {
  setEventPosition(event->position(), event->modifiers());
  switch (event->button()) {
    case Qt::LeftButton:
      interactor_->InvokeEvent(vtkCommand::LeftButtonReleaseEvent);
      break;
    case Qt::MiddleButton:
      interactor_->InvokeEvent(vtkCommand::MiddleButtonReleaseEvent);
      break;
    case Qt::RightButton:
      interactor_->InvokeEvent(vtkCommand::RightButtonReleaseEvent);
      break;
    default:
      break;
  }
  if (event->button() == Qt::LeftButton && !dragged_) {
    const double dpr = devicePixelRatioF();
    const int x = static_cast<int>(event->position().x() * dpr + 0.5);
    const int y = static_cast<int>((height() - event->position().y()) * dpr + 0.5);
    emit clicked(x, y);
  }
  requestRender();
}

void VtkView::wheelEvent(QWheelEvent* event) {
  setEventPosition(event->position(), event->modifiers());
  const int delta = event->angleDelta().y();
  if (delta > 0) interactor_->InvokeEvent(vtkCommand::MouseWheelForwardEvent);
  if (delta < 0) interactor_->InvokeEvent(vtkCommand::MouseWheelBackwardEvent);
  requestRender();
}

}  // namespace racktwin::gui
